/*
 * cli/cli_paths.c - turning command-line arguments into model files.
 *
 * A file is scanned as given, whatever its name. A directory is searched recursively for
 * the files the library's format registry names (opmap_format_detect: models by extension,
 * a printed graph's .txt by its start; Python sources), in sorted order so runs are
 * reproducible. Links are followed, but
 * each directory (st_dev, st_ino) is searched once per run: two links to "." would
 * otherwise make 2^depth paths.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"

/* Deeper trees are refused rather than half searched: a model left out would pass the gate. */
#define MAX_DIR_DEPTH 64
#define MAX_DIRS (1u << 20)

/* A directory searched already: where it was first reached, for the note. */
struct cli_seen_dir {
    dev_t dev;
    ino_t ino;
    char *path;   /* NULL: empty slot */
};

static size_t seen_hash(dev_t dev, ino_t ino, size_t mask)
{
    uint64_t h = (uint64_t)ino * 0x9E3779B97F4A7C15u ^ (uint64_t)dev * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(h ^ (h >> 29)) & mask;
}

static int seen_grow(cli_paths *p)
{
    size_t ncap = p->seen_cap ? p->seen_cap * 2 : 256, i;
    struct cli_seen_dir *ns = calloc(ncap, sizeof(*ns));
    if (!ns)
        return -1;
    for (i = 0; i < p->seen_cap; i++) {
        size_t h;
        if (!p->seen[i].path)
            continue;
        for (h = seen_hash(p->seen[i].dev, p->seen[i].ino, ncap - 1); ns[h].path;)
            h = (h + 1) & (ncap - 1);
        ns[h] = p->seen[i];
    }
    free(p->seen);
    p->seen = ns;
    p->seen_cap = ncap;
    return 0;
}

/* Records `dir`: 0 when new, 1 when searched already (*first: where), -1 out of memory. */
static int seen_add(cli_paths *p, const struct stat *st, const char *dir, const char **first)
{
    size_t h;
    if ((p->n_seen + 1) * 2 > p->seen_cap && seen_grow(p))
        return -1;
    for (h = seen_hash(st->st_dev, st->st_ino, p->seen_cap - 1); p->seen[h].path;
         h = (h + 1) & (p->seen_cap - 1))
        if (p->seen[h].dev == st->st_dev && p->seen[h].ino == st->st_ino) {
            *first = p->seen[h].path;
            return 1;
        }
    if (!(p->seen[h].path = strdup(dir)))
        return -1;
    p->seen[h].dev = st->st_dev;
    p->seen[h].ino = st->st_ino;
    p->n_seen++;
    return 0;
}

static int push_item(cli_paths *p, const char *path, int found, cli_project *proj)
{
    if (p->len == p->cap) {
        size_t ncap = p->cap ? p->cap * 2 : 64;
        char **ni = realloc(p->items, ncap * sizeof(*ni));
        unsigned char *nf = realloc(p->found, ncap);
        cli_project **np = realloc(p->proj, ncap * sizeof(*np));
        char **nw = realloc(p->why, ncap * sizeof(*nw));
        if (ni)
            p->items = ni;
        if (nf)
            p->found = nf;
        if (np)
            p->proj = np;
        if (nw)
            p->why = nw;
        if (!ni || !nf || !np || !nw)
            return -1;
        p->cap = ncap;
    }
    if (!(p->items[p->len] = strdup(path)))
        return -1;
    p->found[p->len] = (unsigned char)found;
    p->proj[p->len] = proj;
    p->why[p->len] = NULL;
    p->len++;
    return 0;
}

static int push(cli_paths *p, const char *path, int found)
{
    return push_item(p, path, found, NULL);
}

/* An entry of a directory named like a model or a source that is no file to read: kept, so
 * the scan lists it as not read instead of passing over it (a gate that has not seen a
 * model does not pass). Never opened: a FIFO would block the scan. */
static int push_unreadable(cli_paths *p, const char *path)
{
    struct stat st;
    const char *why = "not a regular file";
    int e = 0;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        e = stat(path, &st) != 0 ? errno : 0;
        why = e == ENOENT ? "a symbolic link to nothing"
              : e == ELOOP ? "a symbolic link in a loop"
              : e ? "a symbolic link that cannot be followed" : NULL;
    }
    if (!e || !why)
        why = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket"
              : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a regular file";
    if (push(p, path, 1) || !(p->why[p->len - 1] = strdup(why)))
        return -1;
    return 0;
}


static int project_add(cli_project *proj, const char *path)
{
    if (proj->n == proj->cap) {
        size_t ncap = proj->cap ? proj->cap * 2 : 16;
        char **nf = realloc(proj->files, ncap * sizeof(*nf));
        if (!nf)
            return -1;
        proj->files = nf;
        proj->cap = ncap;
    }
    if (!(proj->files[proj->n] = strdup(path)))
        return -1;
    proj->n++;
    return 0;
}

static void project_free(cli_project *proj)
{
    size_t i;
    if (!proj)
        return;
    for (i = 0; i < proj->n; i++)
        free(proj->files[i]);
    free(proj->files);
    free(proj);
}

/* What a directory search reads, as the library's format registry says: models by their
 * name (a printed graph's .txt by its first bytes too), Python sources and the CUDA files
 * an extension builds from. An entry that is no regular file is judged by its name alone
 * and never opened (a FIFO would block the scan). */
static opmap_format detect(const char *path, int regular)
{
    return opmap_format_detect(path, regular ? 0 : OPMAP_DETECT_NAME_ONLY);
}

/* "*.onnx, *.pt, *.ptl, *.pt2, graph text *.txt" (models) or "*.py, *.cu, *.cuh" (sources),
 * from the registry: the names a directory search reads. */
static void name_list(int sources, char *buf, size_t size)
{
    size_t used = 0;
    int pass, id;
    buf[0] = '\0';
    for (pass = 0; pass < 2; pass++) /* names settled by content last: they need a word */
        for (id = 1; id < OPMAP_FORMAT_COUNT; id++) {
            opmap_format_info f = { .size = sizeof(f) };
            const char *e;
            int content;
            if (opmap_format_info_get((opmap_format)id, &f) != OPMAP_OK ||
                !(f.traits & OPMAP_FORMAT_TRAIT_SOURCES) != !sources)
                continue;
            content = (f.traits & OPMAP_FORMAT_TRAIT_PRINTED) != 0;
            if (content != pass)
                continue;
            for (e = f.extensions; *e && used < size;) {
                size_t k = strcspn(e, " ");
                used += (size_t)snprintf(buf + used, size - used, "%s%s*%.*s", used ? ", " : "",
                                         content ? "graph text " : "", (int)k, e);
                e += k + (e[k] == ' ');
            }
        }
}

typedef struct entry {
    char *name;
    unsigned char type;   /* d_type: DT_DIR, DT_REG, or DT_UNKNOWN (then stat() decides) */
} entry;

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

/* Collects model files below `dir` into p and source files into proj, entering each
 * directory once (recursion: depth-bounded). */
static int walk_dir(cli_paths *p, cli_project *proj, const char *dir, int depth)
{
    DIR *d;
    struct dirent *e;
    struct stat dst;
    entry *names = NULL;
    size_t n = 0, cap = 0, i, dlen = strlen(dir);
    const char *first = NULL;
    int rc = 0;
    if (depth > MAX_DIR_DEPTH) {
        cli_fail("%s: directories nested deeper than %d levels; not searched", dir,
                 MAX_DIR_DEPTH);
        return EXIT_INPUT;
    }
    if (!(d = opendir(dir))) {
        cli_fail("%s: cannot read directory: %s", dir, strerror(errno));
        return EXIT_INPUT;
    }
    if (fstat(dirfd(d), &dst) != 0) {
        cli_fail("%s: cannot stat directory: %s", dir, strerror(errno));
        closedir(d);
        return EXIT_INPUT;
    }
    if (p->n_seen >= MAX_DIRS) {
        cli_fail("%s: more than %u directories to search", dir, MAX_DIRS);
        closedir(d);
        return EXIT_INPUT;
    }
    switch (seen_add(p, &dst, dir, &first)) {
    case 0:
        break;
    case 1: /* a link back to it, or a second name on the command line */
        cli_fail("note: %s: already searched as %s; not searched again", dir, first);
        closedir(d);
        p->n_again++;
        return 0;
    default:
        closedir(d);
        return EXIT_INTERNAL;
    }
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            entry *nn = realloc(names, ncap * sizeof(*nn));
            if (!nn) {
                rc = EXIT_INTERNAL;
                break;
            }
            names = nn;
            cap = ncap;
        }
        if (!(names[n].name = strdup(e->d_name))) {
            rc = EXIT_INTERNAL;
            break;
        }
        names[n++].type = e->d_type;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), cmp_entry);
    for (i = 0; i < n; i++) {
        size_t len = dlen + strlen(names[i].name) + 2;
        char *path = malloc(len);
        unsigned char type = names[i].type;
        struct stat st;
        if (!rc && path) {
            snprintf(path, len, "%s%s%s", dir, dlen && dir[dlen - 1] == '/' ? "" : "/",
                     names[i].name);
            /* d_type spares a stat() per file; links and unknown types still get one */
            if (type == DT_UNKNOWN || type == DT_LNK)
                type = stat(path, &st) != 0 ? DT_UNKNOWN
                       : S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
            if (type == DT_DIR)
                rc = walk_dir(p, proj, path, depth + 1);
            else if (type != DT_DIR) {
                opmap_format f = detect(path, type == DT_REG);
                if (f != OPMAP_FORMAT_UNKNOWN && type != DT_REG)
                    rc = push_unreadable(p, path) ? EXIT_INTERNAL : 0;
                else if (f == OPMAP_FORMAT_PYTHON)
                    rc = project_add(proj, path) ? EXIT_INTERNAL : 0;
                else if (f != OPMAP_FORMAT_UNKNOWN)
                    rc = push(p, path, 1) ? EXIT_INTERNAL : 0;
            }
        } else if (!path) {
            rc = EXIT_INTERNAL;
        }
        free(path);
        free(names[i].name);
    }
    free(names);
    return rc;
}

int cli_paths_add(cli_paths *p, const char *arg)
{
    struct stat st;
    size_t before = p->len, again = p->n_again;
    cli_project *proj;
    int rc;
    if (stat(arg, &st) != 0) {
        cli_fail("%s: %s", arg, strerror(errno));
        return EXIT_INPUT;
    }
    if (!(proj = calloc(1, sizeof(*proj))))
        return EXIT_INTERNAL;
    if (!S_ISDIR(st.st_mode)) {
        /* a source file named alone is a project of one file */
        if (detect(arg, 0) != OPMAP_FORMAT_PYTHON) {
            project_free(proj);
            return push(p, arg, 0) ? EXIT_INTERNAL : 0;
        }
        if (project_add(proj, arg) || push_item(p, arg, 0, proj)) {
            project_free(proj);
            return EXIT_INTERNAL;
        }
        return 0;
    }
    if ((rc = walk_dir(p, proj, arg, 0))) {
        project_free(proj);
        return rc;
    }
    /* the directory's training code is one project, after its models */
    if (proj->n && push_item(p, arg, 0, proj)) {
        project_free(proj);
        return EXIT_INTERNAL;
    }
    if (!proj->n)
        project_free(proj);
    /* models reached first under another name are not missing */
    if (p->len == before && p->n_again == again) {
        char models[256], sources[128];
        name_list(0, models, sizeof(models));
        name_list(1, sources, sizeof(sources));
        cli_fail("%s: no model files (%s) and no sources (%s) in this directory", arg, models,
                 sources);
        return EXIT_INPUT;
    }
    return 0;
}

void cli_paths_free(cli_paths *p)
{
    size_t i;
    for (i = 0; i < p->len; i++) {
        free(p->items[i]);
        free(p->why[i]);
        project_free(p->proj[i]);
    }
    free(p->items);
    free(p->found);
    free(p->proj);
    free(p->why);
    for (i = 0; i < p->seen_cap; i++)
        free(p->seen[i].path);
    free(p->seen);
    memset(p, 0, sizeof(*p));
}
