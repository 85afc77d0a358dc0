/* busmap.c — address windows (busmap.h): a short array, scanned; the device
 * has a handful of windows and host memory behind the rest. */
#include "busmap.h"

#include <errno.h>
#include <stdlib.h>

typedef struct window {
    uint64_t base, size;
    bus_t target;
} window_t;

struct busmap {
    bus_t fallback;
    window_t win[BUSMAP_MAX_WINDOWS];
    unsigned n;
};

int busmap_create(busmap_t **out, bus_t fallback)
{
    if (!out || !fallback.ops)
        return -EINVAL;
    busmap_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->fallback = fallback;
    *out = m;
    return 0;
}

void busmap_destroy(busmap_t *m) { free(m); }

/* [a, a + alen) and [b, b + blen) share a byte (lengths >= 1, no wrap). */
static int overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a <= b + (blen - 1) && b <= a + (alen - 1);
}

int busmap_map(busmap_t *m, uint64_t base, uint64_t size, bus_t target)
{
    if (!m || !size || !target.ops || base + (size - 1) < base)
        return -EINVAL;
    for (unsigned i = 0; i < m->n; i++)
        if (overlap(base, size, m->win[i].base, m->win[i].size))
            return -EEXIST;
    if (m->n == BUSMAP_MAX_WINDOWS)
        return -ENOSPC;
    m->win[m->n++] = (window_t){base, size, target};
    return 0;
}

int busmap_unmap(busmap_t *m, uint64_t base)
{
    if (!m)
        return -EINVAL;
    for (unsigned i = 0; i < m->n; i++)
        if (m->win[i].base == base) {
            m->win[i] = m->win[--m->n];
            return 0;
        }
    return -ENOENT;
}

/* The memory that serves [addr, addr + len), or NULL when the access straddles
 * a window's edge. */
static const bus_t *route(const busmap_t *m, uint64_t addr, size_t len)
{
    const uint64_t n = len ? len : 1;
    if (addr + (n - 1) < addr)
        return NULL;
    for (unsigned i = 0; i < m->n; i++) {
        const window_t *w = &m->win[i];
        if (!overlap(addr, n, w->base, w->size))
            continue;
        const int inside = addr >= w->base && addr - w->base <= w->size - n && n <= w->size;
        return inside ? &w->target : NULL;
    }
    return &m->fallback;
}

static int map_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    const bus_t *b = route(ctx, addr, len);
    return b ? bus_read(b, addr, buf, len) : -EFAULT;
}

static int map_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    const bus_t *b = route(ctx, addr, len);
    return b ? bus_write(b, addr, buf, len) : -EFAULT;
}

/* A window's memory answers for its own timing; host memory has none here. */
static int map_timing(void *ctx, uint64_t addr, bus_timing_t *t)
{
    const bus_t *b = route(ctx, addr, 1);
    return b && b->ops->timing ? b->ops->timing(b->ctx, addr, t) : -ENOENT;
}

static const bus_ops_t busmap_ops = {map_read, map_write, map_timing};

bus_t busmap_bus(busmap_t *m)
{
    return (bus_t){&busmap_ops, m};
}
