# Every dependency comes from a Debian bookworm package; scripts/install-deps.sh installs them.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
# TPU runtime metric service: protobuf + gRPC (libgrpc++-dev, protobuf-compiler-grpc ship CMake
# configs with gRPC::grpc++ and gRPC::grpc_cpp_plugin).
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(simdjson CONFIG REQUIRED)  # libsimdjson-dev: simdjson::simdjson, for traces
find_package(ZLIB REQUIRED)  # .json.gz traces
find_package(MPI COMPONENTS C)  # libopenmpi-dev; optional: without it `bench network` is unsupported
find_package(OpenMP REQUIRED COMPONENTS CXX)
set(BLA_VENDOR OpenBLAS)
find_package(BLAS REQUIRED)
# FindBLAS gives only the library; Debian keeps cblas.h under the variant's directory.
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas-openmp openblas
          PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE} REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
set(CURSES_NEED_NCURSES TRUE)
set(CURSES_NEED_WIDE TRUE)
find_package(Curses REQUIRED)
if(XPUPERF_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(XPUPERF_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
# `xpuperf serve` (exporter/): cpp-httplib (libcpp-httplib-dev, built with OpenSSL), OpenSSL,
# libdeflate (gzip) and libxcrypt (bcrypt). Optional: without any of them `serve` says unsupported.
pkg_check_modules(CPPHTTPLIB IMPORTED_TARGET cpp-httplib)
pkg_check_modules(LIBDEFLATE IMPORTED_TARGET libdeflate)
pkg_check_modules(LIBXCRYPT IMPORTED_TARGET libxcrypt)
find_package(OpenSSL COMPONENTS SSL Crypto)
if(CPPHTTPLIB_FOUND AND LIBDEFLATE_FOUND AND LIBXCRYPT_FOUND AND OpenSSL_FOUND)
  set(XPUPERF_HAVE_EXPORTER ON)
else()
  set(XPUPERF_HAVE_EXPORTER OFF)
  message(STATUS "xpuperf serve: unsupported (needs cpp-httplib, OpenSSL, libdeflate, libxcrypt)")
endif()
