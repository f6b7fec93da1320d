# FindFLINT.cmake — locate FLINT (https://flintlib.org).
#
# Debian 12 ships libflint-dev 2.9 with neither a pkg-config file nor a CMake
# package config, so we probe headers and library directly. FLINT 3 installs a
# CMake config; it is tried first.
#
# Result: imported target FLINT::FLINT, variables FLINT_FOUND, FLINT_VERSION,
# FLINT_INCLUDE_DIR, FLINT_LIBRARY.

include(FindPackageHandleStandardArgs)

find_package(flint CONFIG QUIET)
if(flint_FOUND AND TARGET flint::flint)
  if(NOT TARGET FLINT::FLINT)
    add_library(FLINT::FLINT INTERFACE IMPORTED)
    set_target_properties(FLINT::FLINT PROPERTIES INTERFACE_LINK_LIBRARIES flint::flint)
  endif()
  set(FLINT_FOUND TRUE)
  set(FLINT_VERSION "${flint_VERSION}")
  return()
endif()

find_path(FLINT_INCLUDE_DIR NAMES flint/flint.h)
find_library(FLINT_LIBRARY NAMES flint)

if(FLINT_INCLUDE_DIR AND EXISTS "${FLINT_INCLUDE_DIR}/flint/flint.h")
  file(STRINGS "${FLINT_INCLUDE_DIR}/flint/flint.h" _flint_ver
       REGEX "^#define[ \t]+__FLINT_VERSION(_MINOR|_PATCHLEVEL)?[ \t]+[0-9]+")
  string(REGEX REPLACE ".*__FLINT_VERSION[ \t]+([0-9]+).*" "\\1" _maj "${_flint_ver}")
  string(REGEX REPLACE ".*__FLINT_VERSION_MINOR[ \t]+([0-9]+).*" "\\1" _min "${_flint_ver}")
  string(REGEX REPLACE ".*__FLINT_VERSION_PATCHLEVEL[ \t]+([0-9]+).*" "\\1" _pat "${_flint_ver}")
  set(FLINT_VERSION "${_maj}.${_min}.${_pat}")
endif()

find_package_handle_standard_args(FLINT
  REQUIRED_VARS FLINT_LIBRARY FLINT_INCLUDE_DIR
  VERSION_VAR FLINT_VERSION)

if(FLINT_FOUND AND NOT TARGET FLINT::FLINT)
  add_library(FLINT::FLINT UNKNOWN IMPORTED)
  set_target_properties(FLINT::FLINT PROPERTIES
    IMPORTED_LOCATION "${FLINT_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${FLINT_INCLUDE_DIR}")
endif()
mark_as_advanced(FLINT_INCLUDE_DIR FLINT_LIBRARY)
