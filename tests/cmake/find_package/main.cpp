// Installed-package smoke test: the header is found through strata::strata's install interface.
#include <strata/version.hpp>

int main() { return strata::version > 0 ? 0 : 1; }
