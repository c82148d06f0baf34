# Fails when a tracked C/C++ source differs from clang-format's output. Run by ctest.
# Every C/C++/CUDA source of the project; build trees and hidden folders are not sources.
file(GLOB_RECURSE sources ${SOURCE_DIR}/*.h ${SOURCE_DIR}/*.cpp ${SOURCE_DIR}/*.c ${SOURCE_DIR}/*.cu
     ${SOURCE_DIR}/*.cuh)
list(FILTER sources EXCLUDE REGEX "^${SOURCE_DIR}/(build[^/]*|results|\\.[^/]*)/")
set(bad "")
foreach(file ${sources})
  execute_process(COMMAND ${CLANG_FORMAT} --dry-run -Werror ${file} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    list(APPEND bad ${file})
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " listing)
  message(FATAL_ERROR "not formatted (run clang-format -i):\n  ${listing}")
endif()
message(STATUS "clang-format: all sources formatted")
