/*
 * core/info.h - filling a caller's versioned info struct (docs/api.md, "Info structs").
 *
 * The caller sets `size` (its sizeof); the library fills the fields that fit in both its
 * own and the caller's version, and refuses a size below the struct's first version, so a
 * caller built against older headers is never written past its end.
 */
#ifndef OM_INFO_H
#define OM_INFO_H

#include <stddef.h>
#include <string.h>

#include <opmap/error.h>

/* The size of a struct's first version: up to and including its last field then. Pinned,
 * so adding fields later never refuses old callers. */
#define OM_INFO_V1(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* Copies `full` (the library's whole struct, size field included) into `out`, keeping
 * out->size. @return OPMAP_OK, or OPMAP_EINVAL for NULL or a size below v1. */
static inline int om_info_fill(void *out, const void *full, size_t full_size, size_t v1)
{
    size_t want;
    if (!out)
        return OPMAP_EINVAL;
    memcpy(&want, out, sizeof(want));
    if (want < v1)
        return OPMAP_EINVAL;
    if (want > full_size)
        want = full_size;
    memcpy((char *)out + sizeof(size_t), (const char *)full + sizeof(size_t),
           want - sizeof(size_t));
    return OPMAP_OK;
}

/* The usual call: `return OM_INFO_FILL(out, &info, opmap_x_info, last_v1_field);` */
#define OM_INFO_FILL(out, full, type, last) \
    om_info_fill((out), (full), sizeof(type), OM_INFO_V1(type, last))

#endif /* OM_INFO_H */
