# The CUDA benchmarks (cuda_bench/): XPUPERF_CUDA=AUTO builds them when nvcc is found (through
# CMAKE_CUDA_COMPILER, CUDACXX, the PATH or /usr/local/cuda), ON requires it, OFF skips them.
# Sets XPUPERF_HAVE_CUDA.
set(XPUPERF_CUDA AUTO CACHE STRING "Build the CUDA benchmarks: AUTO, ON or OFF")
set_property(CACHE XPUPERF_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${XPUPERF_CUDA}" xpuperf_cuda_mode)
if(NOT xpuperf_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "XPUPERF_CUDA must be AUTO, ON or OFF (got '${XPUPERF_CUDA}')")
endif()

set(XPUPERF_HAVE_CUDA OFF)
if(NOT XPUPERF_WITH_BENCHMARKS)
  set(xpuperf_cuda_mode OFF)  # the CUDA code is benchmarks
endif()
if(NOT xpuperf_cuda_mode STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  if(NOT CMAKE_CUDA_COMPILER)
    include(CheckLanguage)
    check_language(CUDA)
  endif()
  if(CMAKE_CUDA_COMPILER)
    # CUDA 13 builds sm_75 and newer only; Ampere and Hopper by default.
    if(NOT CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80;90")
    endif()
    if(CCACHE_PROGRAM AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${ccache_launcher})
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(XPUPERF_HAVE_CUDA ON)
    message(STATUS "CUDA benchmarks: on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(xpuperf_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "XPUPERF_CUDA=ON but no CUDA compiler was found: install the CUDA toolkit "
                        "(/usr/local/cuda) or set CMAKE_CUDA_COMPILER")
  else()
    message(STATUS "CUDA benchmarks: off (no nvcc found; they report 'built without CUDA')")
  endif()
else()
  message(STATUS "CUDA benchmarks: off (XPUPERF_CUDA=OFF or XPUPERF_WITH_BENCHMARKS=OFF)")
endif()
