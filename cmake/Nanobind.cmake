# Finds Python's development files and nanobind for the Python package (python/); sets
# nanobind_FOUND. Under a pip build (scikit-build-core) the build environment's interpreter has
# nanobind. A plain CMake build asks scripts/python-env.sh for the pinned environment of
# requirements/python-build.txt (created once, cached), so `scripts/test.sh` builds the module too.
set(nanobind_FOUND FALSE)
if(NOT SKBUILD AND NOT DEFINED Python_EXECUTABLE)
  execute_process(COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/python-env.sh python-build
                  OUTPUT_VARIABLE xpuperf_build_venv OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE xpuperf_build_venv_rc ERROR_VARIABLE xpuperf_build_venv_err)
  if(xpuperf_build_venv_rc EQUAL 0 AND EXISTS "${xpuperf_build_venv}/bin/python")
    set(Python_EXECUTABLE "${xpuperf_build_venv}/bin/python")
  else()
    message(STATUS "python: scripts/python-env.sh python-build failed: ${xpuperf_build_venv_err}")
  endif()
endif()
find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
if(Python_FOUND)
  execute_process(COMMAND ${Python_EXECUTABLE} -m nanobind --cmake_dir
                  OUTPUT_VARIABLE nanobind_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE nanobind_dir_rc ERROR_QUIET)
  if(nanobind_dir_rc EQUAL 0)
    find_package(nanobind CONFIG)
  endif()
endif()
