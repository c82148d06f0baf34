# Shared compile settings and the helpers each component folder uses.

add_library(xpuperf_build_flags INTERFACE)
target_compile_options(xpuperf_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra -Wno-unused-parameter>
  # g++ 12 reports std::variant<double, Distribution> moves as maybe-uninitialized (a known false
  # positive of its variant analysis).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
if(XPUPERF_SANITIZE)
  target_compile_options(xpuperf_build_flags INTERFACE
    -fsanitize=${XPUPERF_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(xpuperf_build_flags INTERFACE -fsanitize=${XPUPERF_SANITIZE})
endif()
if(XPUPERF_FUZZ)
  # Coverage feedback needs the libraries under test instrumented too (fuzz/ links them).
  target_compile_options(xpuperf_build_flags INTERFACE -fsanitize=fuzzer-no-link)
endif()

# xpuperf_component(NAME <name> [DEPS ...]): a static library from src/*.cpp with include/ public,
# aliased as xpuperf::<name>.
function(xpuperf_component)
  cmake_parse_arguments(ARG "" "NAME" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  add_library(xpuperf_${ARG_NAME} STATIC ${sources})
  add_library(xpuperf::${ARG_NAME} ALIAS xpuperf_${ARG_NAME})
  # include/ is the component's interface; src/ holds the headers no other component includes.
  target_include_directories(xpuperf_${ARG_NAME} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(xpuperf_${ARG_NAME} PUBLIC ${ARG_DEPS} xpuperf_build_flags
                        PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# xpuperf_component_tests(NAME <name> DEPS ... [FIXTURES <fixture>]): one gtest executable from
# tests/*.cpp; FIXTURES names a ctest fixture every test requires (a test environment).
function(xpuperf_component_tests)
  cmake_parse_arguments(ARG "" "NAME;FIXTURES" "DEPS" ${ARGN})
  if(NOT XPUPERF_BUILD_TESTS)
    return()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(${ARG_NAME}_tests ${sources})
  target_include_directories(${ARG_NAME}_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${ARG_NAME}_tests PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock
                        GTest::gtest_main xpuperf_build_flags)
  target_compile_definitions(${ARG_NAME}_tests PRIVATE
    XPUPERF_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/tests/data"
    XPUPERF_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set(fixture_properties "")
  if(ARG_FIXTURES)
    set(fixture_properties FIXTURES_REQUIRED ${ARG_FIXTURES})
  endif()
  gtest_discover_tests(${ARG_NAME}_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${ARG_NAME}
                       ${fixture_properties})
endfunction()
