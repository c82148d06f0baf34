# Fails when a tracked C/C++ source differs from clang-format's output. Run by ctest.
file(GLOB_RECURSE sources
  ${SOURCE_DIR}/core/*.h ${SOURCE_DIR}/core/*.cpp ${SOURCE_DIR}/backends/*.h ${SOURCE_DIR}/backends/*.cpp
  ${SOURCE_DIR}/capi/*.h ${SOURCE_DIR}/capi/*.cpp ${SOURCE_DIR}/capi/*.c
  ${SOURCE_DIR}/cli/*.h ${SOURCE_DIR}/cli/*.cpp ${SOURCE_DIR}/fuzz/*.cpp)
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
