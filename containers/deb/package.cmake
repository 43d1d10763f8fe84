# The Debian package a host or VM image installs: `cpack -G DEB` in the build directory (or
# `cmake --build build --target package`) writes build/package/rdmacheck_<version>_amd64.deb:
#   /usr/bin/rdmacheck
#   /usr/share/rdmacheck/expectations/*.json  (found next to the binary: ExpectationsDir())
#   /usr/share/rdmacheck/scripts/{setup-softrdma.sh,run-devices.sh}
# Dependencies: the shared libraries the binary links (dpkg-shlibdeps: libibverbs1,
# librdmacm1, libabsl20220623, libstdc++6, ...) and what it loads or runs: the providers
# (ibverbs-providers: rxe, siw, mlx5, ...) and iproute2 (`rdma`, used by setup-softrdma.sh).
install(PROGRAMS scripts/setup-softrdma.sh scripts/run-devices.sh DESTINATION share/rdmacheck/scripts)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rdmacheck)
set(CPACK_PACKAGE_VENDOR rdmacheck)
set(CPACK_PACKAGE_CONTACT "rdmacheck developers <rdmacheck@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "RDMA conformance tests: what an RDMA device declares and really does")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # rdmacheck_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "ibverbs-providers, iproute2")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "rdma-core, kmod")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # quick to make and to unpack under an emulated CPU
include(CPack)

# Host check (label unit): the package builds and holds what a user runs, with its
# dependencies declared. The lab check installs it into a clean root: device.deb.
add_test(NAME package.deb COMMAND ${CMAKE_CURRENT_LIST_DIR}/deb_test.sh build ${CMAKE_BINARY_DIR})
set_tests_properties(package.deb PROPERTIES LABELS unit TIMEOUT 600 RUN_SERIAL TRUE)
add_test(NAME device.deb COMMAND ${CMAKE_CURRENT_LIST_DIR}/deb_test.sh install ${CMAKE_BINARY_DIR}
                                 --timeout_multiplier=${RDMACHECK_TEST_TIMEOUT_MULTIPLIER})
set_tests_properties(device.deb PROPERTIES LABELS device TIMEOUT 900 RUN_SERIAL TRUE SKIP_RETURN_CODE 77
                     ENVIRONMENT OUT=${RDMACHECK_TEST_OUT})
