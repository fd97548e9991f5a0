/*
 * opmap/common.h - export macros and C/C++ linkage shared by every public header.
 *
 * Public headers include only other opmap/ headers and the C standard library, so no
 * third-party type (protobuf-c, libyaml, cJSON, zlib) ever appears in the API.
 */
#ifndef OPMAP_COMMON_H
#define OPMAP_COMMON_H

#include <stddef.h>
#include <stdint.h>

/** Marks a function exported from libopmap; everything else in the library is hidden. */
#if defined(_WIN32) && !defined(OPMAP_STATIC)
#  ifdef OPMAP_BUILDING
#    define OPMAP_API __declspec(dllexport)
#  else
#    define OPMAP_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define OPMAP_API __attribute__((visibility("default")))
#else
#  define OPMAP_API
#endif

/** Marks an API that will be removed in a later major version. */
#if defined(__GNUC__)
#  define OPMAP_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define OPMAP_DEPRECATED(msg)
#endif

/** Open and close the declarations of a header: C linkage when compiled as C++. */
#ifdef __cplusplus
#  define OPMAP_BEGIN_DECL extern "C" {
#  define OPMAP_END_DECL }
#else
#  define OPMAP_BEGIN_DECL
#  define OPMAP_END_DECL
#endif

#endif /* OPMAP_COMMON_H */
