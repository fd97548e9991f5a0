/*
 * readers/torchscript/ts_archive.c - a torch.jit.save archive -> IR (see ts_reader.h).
 *
 * Entries are read one at a time and freed once parsed: every code/X.py into classes and
 * functions, its code/X.py.debug_pkl into (code offset -> file, line) records. data/
 * (tensor storages) is never opened; of data.pkl only the first GLOBAL (the root module's
 * type) is read. The root type's forward is then built, inlined and emitted (ts_opt,
 * ts_emit). Zips that are not TorchScript get a clear OPMAP_EUNSUPPORTED.
 */
#include "ts_reader.h"

#include <inttypes.h>
#include <string.h>

#include "../../core/err.h"
#include "ts_code.h"
#include "ts_ctx.h"
#include "ts_emit.h"
#include "ts_opt.h"
#include "ts_pickle.h"
#include "ts_types.h"
#include "ts_zip.h"

/* The part of an entry name after its top-level folder ("archive/code/x.py" -> "code/x.py"). */
static const char *rel_name(const char *name)
{
    const char *slash = strchr(name, '/');
    return slash ? slash + 1 : name;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int is_pt2_marker(const char *rel)
{
    return strcmp(rel, "archive_format") == 0 ||
           (strncmp(rel, "models/", 7) == 0 && ends_with(rel, ".json")) ||
           strcmp(rel, "serialized_exported_program.json") == 0 ||
           strcmp(rel, "serialized_state_dict.pt") == 0 ||
           strcmp(rel, "serialized_state_dict.json") == 0;
}

/* "code/__torch__/a/b.py" -> "__torch__.a.b" */
static const char *module_of(ts_ctx *c, const char *rel)
{
    size_t n = strlen(rel) - 5 - 3, i;
    char *s = om_arena_strndup(&c->tmp, rel + 5, n);
    if (!s)
        return NULL;
    for (i = 0; i < n; i++)
        if (s[i] == '/')
            s[i] = '.';
    return s;
}

static int read_code(ts_ctx *c, ts_zip *z, ts_prog *prog, uint64_t i, const char *name)
{
    unsigned char *buf;
    size_t len;
    const char *module = module_of(c, rel_name(name));
    ts_file *file;
    int rc;
    int64_t dbg;
    char *dname;
    if (!module)
        return ts_oom(c);
    if ((rc = ts_zip_read(z, i, c->lim->max_entry_bytes, 0, &buf, &len)))
        return rc;
    rc = ts_code_parse(c, prog, name, module, buf, len, &file);
    ts_zip_free(z, buf, len);
    if (rc)
        return rc;
    /* its debug records, when present */
    if (!(dname = om_arena_printf(&c->tmp, "%s.debug_pkl", name)))
        return ts_oom(c);
    dbg = ts_zip_find(z, dname);
    if (dbg < 0)
        return OPMAP_OK;
    if ((rc = ts_zip_read(z, (uint64_t)dbg, c->lim->max_entry_bytes, 0, &buf, &len)))
        return rc;
    rc = ts_debug_read(c, dname, buf, len, &file->dbg);
    ts_zip_free(z, buf, len);
    return rc;
}

/* The class whose forward is the model: data.pkl's first GLOBAL, else the first class
 * with a forward that no other class holds as an attribute. */
static ts_class *root_class(ts_ctx *c, ts_zip *z, ts_prog *prog, int64_t data_pkl)
{
    size_t i, k;
    ts_tys ty;
    if (data_pkl >= 0) {
        unsigned char *buf;
        size_t len;
        char qual[1024];
        if (ts_zip_read(z, (uint64_t)data_pkl, 4096, 1, &buf, &len) == OPMAP_OK) {
            int found = ts_pickle_first_global(buf, len, qual, sizeof(qual));
            ts_zip_free(z, buf, len);
            if (found) {
                const char *q = ts_tintern(c, qual, strlen(qual));
                void *v;
                if (q && ts_prog_find(prog, q, &v) == 1)
                    return v;
            }
        }
        om_err_clear(c->err);
        c->rc = 0;
    }
    ts_tys_init(&ty, c, prog);
    for (i = 0; i < prog->classes.len; i++) {
        ts_class *k2 = OM_VEC_AT(&prog->classes, ts_class *, i);
        for (k = 0; k < k2->n_attrs; k++) {
            const ts_type *t = ty_from_expr(&ty, k2->attrs[k].type);
            ts_class *held = ty_get_class(t);
            if (held && held != k2)
                held->line |= 0x80000000u; /* scratch mark: held by another class */
        }
    }
    {
        ts_class *best = NULL;
        for (i = 0; i < prog->classes.len; i++) {
            ts_class *k2 = OM_VEC_AT(&prog->classes, ts_class *, i);
            int held = (k2->line & 0x80000000u) != 0;
            k2->line &= 0x7FFFFFFFu;
            if (held || best)
                continue;
            for (k = 0; k < k2->n_methods; k++)
                if (strcmp(k2->methods[k].name, "forward") == 0)
                    best = k2;
        }
        return best;
    }
}

int om_ts_archive_read(ir_model *m, const unsigned char *data, uint64_t size,
                       const opmap_limits *lim, opmap_error *err)
{
    ts_ctx c;
    ts_zip *z = NULL;
    ts_prog prog;
    uint64_t i, n;
    int64_t data_pkl = -1, version = -1;
    int has_code = 0, has_bytecode = 0, pt2 = 0, rc;
    ts_class *root;
    ts_func *fwd = NULL;

    ts_ctx_init(&c, m, lim, err);
    ts_prog_init(&prog);
    m->format = OPMAP_FORMAT_TORCHSCRIPT;
    m->producer_name = "pytorch";
    m->producer_version = m->domain = "";
    if ((rc = ts_zip_open(&z, &c, data, size)))
        goto out;
    n = ts_zip_count(z);
    for (i = 0; i < n; i++) {
        const char *name = ts_zip_name(z, i), *rel;
        if (!name)
            continue;
        rel = rel_name(name);
        if (strncmp(rel, "code/", 5) == 0 && ends_with(rel, ".py"))
            has_code = 1;
        else if (strcmp(rel, "data.pkl") == 0 && data_pkl < 0)
            data_pkl = (int64_t)i;
        else if ((strcmp(rel, "version") == 0 || strcmp(rel, ".data/version") == 0) &&
                 version < 0)
            version = (int64_t)i;
        else if (strcmp(rel, "bytecode.pkl") == 0)
            has_bytecode = 1;
        else if (is_pt2_marker(rel) || is_pt2_marker(name))
            pt2 = 1;
    }
    if (pt2) {
        rc = om_fail(err, OPMAP_EUNSUPPORTED, c.src,
                     "a torch.export program (.pt2): opmap does not read these yet; save a "
                     "TorchScript archive (torch.jit.trace or torch.jit.script, then "
                     "torch.jit.save) or export with torch.onnx.export");
        goto out;
    }
    if (!has_code) {
        if (data_pkl >= 0)
            rc = om_fail(err, OPMAP_EUNSUPPORTED, c.src,
                         "a torch.save checkpoint (weights or a pickled module, no code/): it "
                         "holds weights, not a graph; export the model with "
                         "torch.jit.trace(model, example_inputs).save(path) or "
                         "torch.onnx.export");
        else if (has_bytecode)
            rc = om_fail(err, OPMAP_EUNSUPPORTED, c.src,
                         "a lite-interpreter archive with bytecode only (no code/): save it "
                         "with torch.jit.save instead");
        else
            rc = om_fail(err, OPMAP_EUNSUPPORTED, c.src,
                         "a zip archive without TorchScript code (no code/ entries)");
        goto out;
    }
    if (version >= 0) {
        unsigned char *buf;
        size_t len;
        if (ts_zip_read(z, (uint64_t)version, 64, 1, &buf, &len) == OPMAP_OK) {
            size_t k;
            int64_t v = 0;
            for (k = 0; k < len && buf[k] >= '0' && buf[k] <= '9' && v < 100000000; k++)
                v = v * 10 + (buf[k] - '0');
            m->ir_version = v;
            ts_zip_free(z, buf, len);
        }
        om_err_clear(err);
        c.rc = 0;
    }
    for (i = 0; i < n; i++) {
        const char *name = ts_zip_name(z, i), *rel;
        if (!name)
            continue;
        rel = rel_name(name);
        if (strncmp(rel, "code/", 5) == 0 && ends_with(rel, ".py") &&
            (rc = read_code(&c, z, &prog, i, name)))
            goto out;
    }
    root = root_class(&c, z, &prog, data_pkl);
    if (root) {
        uint32_t k;
        for (k = 0; k < root->n_methods; k++)
            if (strcmp(root->methods[k].name, "forward") == 0)
                fwd = &root->methods[k];
    }
    if (!fwd) {
        if (root)
            rc = ts_fail(&c, OPMAP_EFORMAT, root->file->entry, root->line, 1,
                         "the TorchScript archive's root module %s has no forward method",
                         root->qual);
        else
            rc = om_fail(err, OPMAP_EFORMAT, c.src,
                         "no module with a forward method in the TorchScript archive's code/");
        goto out;
    }
    {
        ts_tys ty;
        og_graph *g;
        ts_tys_init(&ty, &c, &prog);
        rc = ts_opt_precheck(&c, &prog, &ty, fwd);
        if (rc == OPMAP_OK)
            rc = ts_opt_function(&c, &prog, &ty, fwd, 1, &g);
        if (rc == 1)
            rc = om_fail(err, OPMAP_EFORMAT, c.src, "the root forward calls itself");
        if (rc == OPMAP_OK)
            rc = ts_emit(&c, g);
    }
out:
    ts_zip_close(z);
    ts_prog_free(&c, &prog);
    ts_ctx_fini(&c);
    return rc;
}
