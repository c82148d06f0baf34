# Writes the CMake link graph of the project's libraries to ${PROJECT_BINARY_DIR}/link_graph.tsv
# (one line per library: name, source directory, the targets it links, public and private), for
# tools/check_architecture.py, which fails on any edge docs/ARCHITECTURE.md does not allow.
# Include it after every add_subdirectory.

function(xpuperf_collect_targets directory out_var)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory ${subdirectories})
    xpuperf_collect_targets(${subdirectory} nested)
    list(APPEND targets ${nested})
  endforeach()
  set(${out_var} ${targets} PARENT_SCOPE)
endfunction()

function(xpuperf_write_link_graph)
  xpuperf_collect_targets(${PROJECT_SOURCE_DIR} targets)
  set(lines "")
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|INTERFACE_LIBRARY)$")
      continue()
    endif()
    get_target_property(source_dir ${target} SOURCE_DIR)
    file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${source_dir})
    set(links "$<TARGET_PROPERTY:${target},INTERFACE_LINK_LIBRARIES>")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      set(links "${links};$<TARGET_PROPERTY:${target},LINK_LIBRARIES>")
    endif()
    string(APPEND lines "${target}\t${relative}\t$<JOIN:${links},,>\n")
  endforeach()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/link_graph.tsv CONTENT "${lines}")
endfunction()

xpuperf_write_link_graph()
