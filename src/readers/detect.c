/*
 * readers/detect.c - which format a file is: by its name, as a directory search decides
 * what to read (opmap_format_detect), and by its bytes, as a model is opened
 * (om_read_model), both from the registry (formats.c).
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/mapfile.h"
#include "formats.h"

/* `name` ends in `ext` (any case) and is longer than it: ".onnx" alone names nothing. */
static int ends_with(const char *name, size_t n, const char *ext, size_t k)
{
    return n > k && strncasecmp(name + n - k, ext, k) == 0;
}

/* The first bytes of a regular file, without blocking on anything else (a FIFO). */
static size_t read_head(const char *path, unsigned char *buf, size_t size)
{
    struct stat st;
    ssize_t got;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    got = read(fd, buf, size);
    close(fd);
    return got > 0 ? (size_t)got : 0;
}

/* Does the file's start say it is format f (a format only its content settles)? */
static int content_says(const om_format *f, const char *path, unsigned flags)
{
    unsigned char head[256];
    size_t n;
    if (flags & OPMAP_DETECT_NAME_ONLY)
        return 0;
    n = read_head(path, head, sizeof(head));
    return n && f->sniff(head, n, NULL);
}

opmap_format opmap_format_detect(const char *path, unsigned flags)
{
    size_t n, id;
    if (!path)
        return OPMAP_FORMAT_UNKNOWN;
    n = strlen(path);
    for (id = 1; id < OPMAP_FORMAT_COUNT; id++) {
        const om_format *f = om_format_of((opmap_format)id);
        const char *e = f->extensions;
        while (*e) {
            size_t k = strcspn(e, " ");
            if (ends_with(path, n, e, k) && (!f->by_content || content_says(f, path, flags)))
                return f->id;
            e += k;
            e += *e == ' ';
        }
    }
    return OPMAP_FORMAT_UNKNOWN;
}

/* torch.save before 1.6 (or with _use_new_zipfile_serialization=False): a pickle whose
 * first value is the long 0x1950a86a20f9469cfc6c. */
static int is_legacy_torch_save(const unsigned char *data, uint64_t size)
{
    static const unsigned char magic[] = { 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20,
                                           0x6a, 0xa8, 0x50, 0x19 };
    return size >= 2 + sizeof(magic) && data[0] == 0x80 &&
           memcmp(data + 2, magic, sizeof(magic)) == 0;
}

int om_read_model(ir_model *m, const unsigned char *data, uint64_t size, const opmap_limits *lim,
                  opmap_error *err)
{
    const om_format *f;
    size_t i;
    if (size == 0)
        return om_fail(err, OPMAP_EFORMAT, m->name, "empty file: not a model");
    om_need(m->input, 0, 16); /* the legacy magic number */
    if (is_legacy_torch_save(data, size))
        return om_fail(err, OPMAP_EUNSUPPORTED, m->name,
                       "a legacy torch.save file (weights or a pickled module): it holds "
                       "weights, not a graph; export the model with "
                       "torch.jit.trace(model, example_inputs).save(path) or torch.onnx.export");
    for (i = 0; (f = om_format_probe(i)); i++) {
        int handled = 0, rc;
        if (f->sniff && !f->sniff(data, size, m->input))
            continue;
        rc = f->read(m, data, size, lim, err, &handled);
        if (handled)
            return rc;
    }
    return om_fail(err, OPMAP_EINTERNAL, m->name, "no reader took the bytes");
}
