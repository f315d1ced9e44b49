# The documented rename, exactly: `torch::` -> `ember::` and <torch/torch.h> -> <ember/ember.h>.
# cmake -DIN=source -DOUT=renamed -P rename.cmake
file(READ "${IN}" text)
string(REPLACE "torch::" "ember::" text "${text}")
string(REPLACE "<torch/torch.h>" "<ember/ember.h>" text "${text}")
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
