/*
 * readers/torchscript/graph_text/scope.h - module paths in printed graphs: the scope a
 * traced node prints (`, scope: __module.layer1/__module.layer1.0`) and the prim::GetAttr
 * chains a call's module comes from, as the path segments the archive reader gives.
 */
#ifndef OM_TS_GRAPH_TEXT_SCOPE_H
#define OM_TS_GRAPH_TEXT_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/mem.h"

/*
 * The module path s[0, n) names, `/`-separated ("layer1/0/conv1"), written to out (room for
 * n + 1 bytes); returns its length, 0 for the root module or a scope naming none. Spellings:
 * `__module.a.b` (torch's tracer; the last segment is qualified from the root),
 * `pkg.Class::a.b` (torch.onnx's names, `Class::` being the root), `Class[name]` per segment
 * (older tracers, the first segment the root's class), else the segments as printed.
 */
size_t gts_scope_path(const char *s, size_t n, char *out);

/* Value name -> module path, for prim::GetAttr results that are submodules. */
typedef struct gts_modtab {
    struct gts_mod *slots;
    size_t cap, len;
    om_mem *mem;
} gts_modtab;

/* The path of module value `name` and its number of segments, or NULL. */
const char *gts_mod_get(const gts_modtab *t, const char *name, uint32_t *depth);
/* Records name -> path of `depth` segments (both strings outlive the table); 0 when out of
 * memory. */
int gts_mod_put(gts_modtab *t, const char *name, const char *path, uint32_t depth);
void gts_mod_free(gts_modtab *t);

#endif /* OM_TS_GRAPH_TEXT_SCOPE_H */
