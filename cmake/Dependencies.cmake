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

# core: ISA-L's isal_inflate (libisal-dev) inflates .gz inputs at ~2.6x zlib's speed; zlib is the
# fallback when it is absent (xpuperf --version names the inflater in use).
option(XPUPERF_WITH_ISAL "ISA-L's inflate for .gz inputs (zlib otherwise)" ON)
if(XPUPERF_WITH_ISAL)
  pkg_check_modules(ISAL IMPORTED_TARGET libisal)
  if(NOT ISAL_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_ISAL "libisal not found: .gz inputs are inflated with zlib")
  endif()
endif()

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
if(XPUPERF_WITH_BENCHMARKS)
  # oneDNN (libdnnl-dev) for the bf16/int8 GEMMs: its headers give the C API's types and the library
  # is opened at run time; without the headers those points report "unsupported: built without".
  # The library is linked only into the direct-call baseline tool (onednn_gemm_direct); Debian's
  # dnnl-config.cmake demands OpenCL headers, so it is found by name instead.
  find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.h)
  find_library(DNNL_LIBRARY dnnl)
  if(NOT DNNL_INCLUDE_DIR)
    message(STATUS "oneDNN headers not found: the gemm benchmark's oneDNN points are unsupported")
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
option(XPUPERF_WITH_XLA_PROFILER
       "The client of XLA's profiler service (jax.profiler.start_server; gRPC generic stub)" ON)
if(XPUPERF_WITH_XLA_PROFILER)
  find_package(gRPC CONFIG)  # libgrpc++-dev: gRPC::grpc++ (no protoc: messages encoded by hand)
  if(NOT gRPC_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_XLA_PROFILER
                        "gRPC not found: JAX profiles report 'unsupported: built without gRPC'")
  endif()
endif()
# On by default only for the top-level project: an embedder's add_subdirectory does not fetch nanobind.
option(XPUPERF_WITH_PYTHON "The Python package's native module (python/, nanobind)" ${XPUPERF_TOP_LEVEL})
if(XPUPERF_WITH_PYTHON AND NOT XPUPERF_WITH_TRACES)
  xpuperf_feature_off(XPUPERF_WITH_PYTHON "needs XPUPERF_WITH_TRACES for xpuperf.analyze")
endif()
if(XPUPERF_WITH_PYTHON AND XPUPERF_SANITIZE)
  # An instrumented extension needs the sanitizer runtime preloaded into the interpreter.
  xpuperf_feature_off(XPUPERF_WITH_PYTHON "not built with sanitizers")
endif()
if(XPUPERF_WITH_PYTHON)
  include(cmake/Nanobind.cmake)
  if(NOT nanobind_FOUND)
    xpuperf_feature_off(XPUPERF_WITH_PYTHON "Python development files or nanobind not found")
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
               "exporter=${XPUPERF_WITH_EXPORTER} xla_profiler=${XPUPERF_WITH_XLA_PROFILER} "
               "python=${XPUPERF_WITH_PYTHON}")
