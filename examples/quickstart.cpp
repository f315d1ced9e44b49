// The opening example of every PyTorch-on-GPU tutorial, in C++.
#include <ember/ember.h>

#include <iostream>

int main() {
  auto device = ember::cuda::is_available() ? ember::Device("cuda") : ember::Device("cpu");
  auto x = ember::randn({1000, 1000}).to(device);
  auto y = ember::randn({1000, 1000}, device);
  auto z = ember::matmul(x, y);
  std::cout << z.device() << "\n" << z.cpu().slice(0, 0, 2).slice(1, 0, 4) << "\n";
  return 0;
}
