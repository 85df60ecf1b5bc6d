// The one doctest main shared by every test executable (compiled once, as an OBJECT library).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
