/*
 * opmap/error.h - status codes and the caller-owned error record.
 *
 * Every fallible call returns an int: OPMAP_OK (0) or a negative opmap_status, and fills the
 * optional `opmap_error *err` the caller passed (NULL is allowed). The library keeps no
 * "last error" anywhere: the record you pass is the only place an error is written, so any
 * number of threads can use the library with their own records.
 *
 * Findings are not errors: a model full of operators Ascend cannot run scans successfully;
 * what it found is in the result (see scan.h).
 */
#ifndef OPMAP_ERROR_H
#define OPMAP_ERROR_H

#include "common.h"

OPMAP_BEGIN_DECL

/**
 * Status codes. The numeric values are pinned: values in [-99, 0] never change meaning.
 */
typedef enum opmap_status {
    OPMAP_OK = 0,           /**< success */
    OPMAP_EINVAL = -1,      /**< bad argument: NULL where an object is required, bad option */
    OPMAP_ENOMEM = -2,      /**< the allocator returned NULL */
    OPMAP_EIO = -3,         /**< a file could not be opened, mapped or read (see sys_errno) */
    OPMAP_EFORMAT = -4,     /**< not a valid model or table: truncated, malformed, inconsistent */
    OPMAP_EUNSUPPORTED = -5,/**< valid input of a kind opmap does not read (yet) */
    OPMAP_ETABLE = -6,      /**< the table is well-formed YAML but breaks the table schema */
    OPMAP_ELIMIT = -7,      /**< a configured limit was exceeded (the message names it) */
    OPMAP_EWRITE = -8,      /**< a report writer callback reported failure */
    OPMAP_EINTERNAL = -9    /**< a bug in opmap; please report it */
} opmap_status;

/** Value of opmap_error.offset when no byte offset applies. */
#define OPMAP_NO_OFFSET UINT64_MAX

/**
 * What went wrong, where. Allocated by the caller (on the stack is fine): reporting an error
 * never allocates, so even OPMAP_ENOMEM is reported completely.
 */
typedef struct opmap_error {
    int code;            /**< an opmap_status, OPMAP_OK when nothing failed */
    int sys_errno;       /**< errno of a failed system call, else 0 */
    uint64_t offset;     /**< byte offset in a binary input, or OPMAP_NO_OFFSET */
    uint32_t line;       /**< 1-based line in a text input (YAML, TorchScript code), else 0 */
    uint32_t column;     /**< 1-based column, else 0 */
    char source[512];    /**< the input: a file path, a zip entry ("a.pt:code/x.py"), "<memory>" */
    char message[512];   /**< one line, no trailing newline */
    unsigned char reserved[64]; /**< zero; room for later fields without an ABI break */
} opmap_error;

/** @return a short constant name for a status, e.g. "invalid format"; never NULL. */
OPMAP_API const char *opmap_status_str(int status);

/**
 * Writes "source:line:column: message", "source: offset N: message" or "source: message"
 * (whichever applies) into buf, always NUL-terminated when size > 0.
 *
 * @return the length the full text needs (like snprintf).
 */
OPMAP_API size_t opmap_error_format(const opmap_error *err, char *buf, size_t size);

/**
 * Writes s into buf as a terminal or a log may show it: C0 controls (ESC, CR, BEL...), DEL,
 * the C1 controls U+0080..U+009F (CSI, OSC), the bidirectional embeddings, overrides and
 * isolates U+202A..U+202E and U+2066..U+2069, and every byte of malformed UTF-8 become '?'
 * (a line break or a tab a space), so a file name or a model string cannot move the
 * cursor, forge a line or reorder one. Always NUL-terminated when size > 0; only whole
 * UTF-8 sequences are written.
 *
 * @return the length the whole text needs (like snprintf).
 */
OPMAP_API size_t opmap_text_for_terminal(const char *s, char *buf, size_t size);

OPMAP_END_DECL

#endif /* OPMAP_ERROR_H */
