/*
 * table/npu_version.h - torch_npu versions: parsing and comparing them.
 *
 * Accepted: an optional `v`, MAJOR.MINOR, an optional .PATCH, then an optional `rcN`
 * (a release candidate, before the release) or `.postN` (a rebuild, after it):
 * "2.1", "2.10", "2.1.0", "2.1.0.post3", "v2.6.0rc1". Each number has at most 6 digits.
 * Anything else is refused. The table's ranges (torch_npu: {min, max}) name op-plugin
 * branches, one per torch_npu line (MAJOR.MINOR): a release answers as its line, so
 * 2.6.0rc1, 2.6.0 and 2.6.0.post3 all have the kernels of 2.6.
 */
#ifndef OM_NPU_VERSION_H
#define OM_NPU_VERSION_H

#include <stddef.h>

typedef struct om_npu_version {
    long major, minor, patch;  /* patch 0 when absent */
    long rc;                   /* N of rcN, or -1 */
    long post;                 /* N of .postN, or -1 */
} om_npu_version;

/* Parses s into *v. 0 on success; -1 with a reason in why[] (why_size > 0). */
int om_npu_version_parse(const char *s, om_npu_version *v, char *why, size_t why_size);

/* Full order: 2.9 < 2.10, 2.6.0rc1 < 2.6.0 < 2.6.0.post1 < 2.6.1. <0, 0, >0. */
int om_npu_version_cmp(const om_npu_version *a, const om_npu_version *b);

/* The torch_npu lines only (MAJOR.MINOR): 2.6.0rc1 and 2.6 compare equal. */
int om_npu_line_cmp(const om_npu_version *a, const om_npu_version *b);

/*
 * Where the line of `at` falls against a row's range (min and max as the table gives
 * them, "" when absent: no lower bound, the newest line): 0 inside, -1 older than min,
 * +1 newer than max, -2 when min or max does not parse.
 */
int om_npu_range_place(const char *min, const char *max, const om_npu_version *at);

#endif /* OM_NPU_VERSION_H */
