/*
 * opmap/version.h - the library's version, at compile time and at run time.
 *
 * This header is the single source of truth: CMake reads the three numbers below.
 */
#ifndef OPMAP_VERSION_H
#define OPMAP_VERSION_H

#include "common.h"

/** The release's major version (what `opmap --version` and reports print). */
#define OPMAP_VERSION_MAJOR 0
/** The release's minor version. */
#define OPMAP_VERSION_MINOR 1
/** The release's patch version. */
#define OPMAP_VERSION_PATCH 0

/**
 * The ABI generation: the SONAME is libopmap.so.OPMAP_ABI_VERSION and the symbols are in
 * version node OPMAP_<it> (src/libopmap.map). Bumped by any binary-incompatible change (a
 * function or struct layout changed or removed), apart from the release version above, so
 * that reports, which print the release, do not change with it. 1: one shape for results
 * (docs/api.md, "ABI changes in 1.0").
 */
#define OPMAP_ABI_VERSION 1

/** MAJOR * 10000 + MINOR * 100 + PATCH, e.g. 100 for 0.1.0. */
#define OPMAP_VERSION_NUMBER \
    (OPMAP_VERSION_MAJOR * 10000 + OPMAP_VERSION_MINOR * 100 + OPMAP_VERSION_PATCH)

/** True when the headers are at least version x.y.z. */
#define OPMAP_AT_LEAST_VERSION(x, y, z) (OPMAP_VERSION_NUMBER >= ((x) * 10000 + (y) * 100 + (z)))

OPMAP_BEGIN_DECL

/** @return the version number of the library actually loaded (see OPMAP_VERSION_NUMBER). */
OPMAP_API unsigned opmap_version_number(void);

/** @return the version of the library actually loaded, e.g. "0.1.0"; a static string. */
OPMAP_API const char *opmap_version_string(void);

/** @return the ABI generation of the library actually loaded (see OPMAP_ABI_VERSION). */
OPMAP_API unsigned opmap_abi_version(void);

OPMAP_END_DECL

#endif /* OPMAP_VERSION_H */
