# The Debian package (`cpack -G DEB` in a build folder; scripts/package.sh builds and runs it):
# the two binaries, the C ABI's library, header, CMake and pkg-config files, the spec sheets,
# the systemd units and the Prometheus rules, stripped, with the debug information in a separate
# -dbgsym package. Runtime dependencies come from dpkg-shlibdeps (bookworm's library packages of
# what the binaries link); vendor libraries (NVML, libtpu, AMD SMI, Level Zero) are loaded with
# dlopen and are never dependencies.
include(GNUInstallDirs)

# The units name the installed binary (the repository's copies name /usr/local/bin for a manual
# install): written at install time, when the prefix is known (/usr in the package, --prefix in
# `cmake --install`), into PREFIX/lib/systemd/system.
foreach(unit xpuperf-serve.service xpuperf-agent.service)
  install(CODE "
    file(READ \"${PROJECT_SOURCE_DIR}/deploy/systemd/${unit}\" unit_text)
    string(REPLACE \"/usr/local/bin/xpuperf\" \"\${CMAKE_INSTALL_PREFIX}/bin/xpuperf\" unit_text \"\${unit_text}\")
    string(REGEX REPLACE \"Install the binary as [^,]*, copy this file[\\n# ]*to /etc/systemd/system/, then:\"
                         \"Installed with xpuperf; enable it with:\" unit_text \"\${unit_text}\")
    set(unit_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
    file(MAKE_DIRECTORY \"\${unit_dir}\")
    file(WRITE \"\${unit_dir}/${unit}\" \"\${unit_text}\")
    message(STATUS \"Installing: \${unit_dir}/${unit}\")
  ")
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/deploy/systemd/web-config.example.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/xpuperf/examples)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/rules/xpuperf-alerts.yml
              ${PROJECT_SOURCE_DIR}/deploy/prometheus/rules/xpuperf-prometheus.yml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/xpuperf/prometheus/rules)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/scrape-config.yml
              ${PROJECT_SOURCE_DIR}/deploy/grafana/xpuperf-dashboard.json
              ${PROJECT_SOURCE_DIR}/deploy/kubernetes/node-problem-detector/xpuperf-health-monitor.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/xpuperf/examples)
# Slurm's HealthCheckProgram (docs/HEALTH.md) and the job-mapping Prolog/Epilog (docs/EXPORTER.md).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/slurm/xpuperf-health-check.sh
                 ${PROJECT_SOURCE_DIR}/deploy/slurm/xpuperf-job-map-prolog.sh
                 ${PROJECT_SOURCE_DIR}/deploy/slurm/xpuperf-job-map-epilog.sh
        DESTINATION lib/xpuperf)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME xpuperf)
set(CPACK_PACKAGE_VENDOR xpuperf)
set(CPACK_PACKAGE_CONTACT "xpuperf maintainers <xpuperf@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Telemetry, microbenchmarks, roofline and trace analysis for CPUs, GPUs and TPUs")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Not CPACK_STRIP_FILES: the debug-info step needs the unstripped files; it moves their debug
# sections into the -dbgsym package (by build id) and strips what the main package ships.
# One package of everything `cmake --install` installs (the Python module is EXCLUDE_FROM_ALL:
# pip installs it).
set(CPACK_DEBIAN_PACKAGE_NAME xpuperf)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/xpuperf/xpuperf")
include(CPack)
