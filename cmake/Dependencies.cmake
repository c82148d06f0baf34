# Every dependency comes from a Debian bookworm package; scripts/install-deps.sh installs them.
# Core, the CPU backend and the CLI need only the first block. Each optional part has an option
# that defaults to ON and turns itself off, with a line saying so, when its dependency is missing
# (what it provides then reports "unsupported: built without ..."); -D<option>=OFF leaves it out.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)
find_package(ZLIB REQUIRED)  # core: bounded inflation of .gz inputs

option(XPUPERF_WITH_TPU "The TPU backend (gRPC client of the libtpu runtime metric service)" ON)
option(XPUPERF_WITH_BENCHMARKS
       "Benchmarks, bench check, compare, roofline and diagnose (OpenBLAS, OpenMP, yaml-cpp)" ON)
option(XPUPERF_WITH_MPI "bench network and the collectives benchmark over MPI" ON)
option(XPUPERF_WITH_TRACES "Trace reading and analysis: analyze, roofline --trace (simdjson)" ON)
option(XPUPERF_WITH_TUI "The curses view of top (top --plain works without it)" ON)
option(XPUPERF_WITH_EXPORTER
       "serve: the Prometheus exporter (cpp-httplib, OpenSSL, libdeflate, libxcrypt, yaml-cpp, gRPC)"
       ON)

# xpuperf_feature_off(OPTION REASON): turns an optional part off for this configuration.
macro(xpuperf_feature_off option reason)
  message(STATUS "${option}: off (${reason})")
  set(${option} OFF)
endmacro()

if(XPUPERF_WITH_TPU)
  # libgrpc++-dev, protobuf-compiler-grpc ship CMake configs with gRPC::grpc++ and
  # gRPC::grpc_cpp_plugin.
  find_package(Protobuf)
  find_package(gRPC CONFIG)
  if(NOT Protobuf_FOUND OR NOT gRPC_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_TPU "gRPC or protobuf not found")
  endif()
endif()
if(XPUPERF_WITH_TRACES)
  find_package(simdjson CONFIG)  # libsimdjson-dev: simdjson::simdjson (zlib is core's)
  if(NOT simdjson_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_TRACES "simdjson not found")
  endif()
endif()
if(XPUPERF_WITH_BENCHMARKS AND NOT XPUPERF_WITH_TRACES)
  # roofline and diagnose place a trace's GEMMs under the roofline (--trace).
  xpuperf_feature_off(XPUPERF_WITH_BENCHMARKS "needs XPUPERF_WITH_TRACES for roofline --trace")
endif()
if(XPUPERF_WITH_BENCHMARKS)
  find_package(yaml-cpp)
  find_package(OpenMP COMPONENTS CXX)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS)
  # FindBLAS gives only the library; Debian keeps cblas.h under the variant's directory.
  find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas-openmp openblas
            PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
  if(NOT yaml-cpp_FOUND OR NOT OpenMP_CXX_FOUND OR NOT BLAS_FOUND OR NOT OPENBLAS_INCLUDE_DIR)
    xpuperf_feature_off(XPUPERF_WITH_BENCHMARKS "yaml-cpp, OpenMP or OpenBLAS not found")
  endif()
endif()
if(NOT XPUPERF_WITH_BENCHMARKS)
  set(XPUPERF_WITH_MPI OFF)  # the network benchmarks are benchmarks; cmake/Cuda.cmake skips CUDA
endif()
if(XPUPERF_WITH_MPI)
  find_package(MPI COMPONENTS C)  # libopenmpi-dev
  if(NOT MPI_C_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_MPI "MPI not found: bench network reports 'unsupported: built without MPI'")
  endif()
endif()
if(XPUPERF_WITH_TUI)
  set(CURSES_NEED_NCURSES TRUE)
  set(CURSES_NEED_WIDE TRUE)
  find_package(Curses)
  if(NOT CURSES_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_TUI "ncursesw not found: top prints plain tables")
  endif()
endif()
if(XPUPERF_WITH_EXPORTER)
  # cpp-httplib (libcpp-httplib-dev, built with OpenSSL), OpenSSL, libdeflate (gzip), libxcrypt
  # (bcrypt), yaml-cpp (web config) and gRPC (the kubelet's pod-resources API).
  pkg_check_modules(CPPHTTPLIB IMPORTED_TARGET cpp-httplib)
  pkg_check_modules(LIBDEFLATE IMPORTED_TARGET libdeflate)
  pkg_check_modules(LIBXCRYPT IMPORTED_TARGET libxcrypt)
  find_package(OpenSSL COMPONENTS SSL Crypto)
  find_package(yaml-cpp)
  find_package(Protobuf)
  find_package(gRPC CONFIG)
  if(NOT CPPHTTPLIB_FOUND OR NOT LIBDEFLATE_FOUND OR NOT LIBXCRYPT_FOUND OR NOT OpenSSL_FOUND
     OR NOT yaml-cpp_FOUND OR NOT Protobuf_FOUND OR NOT gRPC_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_EXPORTER
                        "cpp-httplib, OpenSSL, libdeflate, libxcrypt, yaml-cpp or gRPC not found")
  endif()
endif()
if(XPUPERF_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(XPUPERF_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
message(STATUS "xpuperf parts: TPU=${XPUPERF_WITH_TPU} benchmarks=${XPUPERF_WITH_BENCHMARKS} "
               "MPI=${XPUPERF_WITH_MPI} traces=${XPUPERF_WITH_TRACES} TUI=${XPUPERF_WITH_TUI} "
               "exporter=${XPUPERF_WITH_EXPORTER}")
