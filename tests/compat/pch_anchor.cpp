// Compiles the precompiled header that every program of its side reuses (CMakeLists.txt). An
// executable, so that the header is built with the programs' own flags (-fPIE, not -fPIC).
int main() {
  return 0;
}
