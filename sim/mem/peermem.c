/* peermem.c — a peer device's memory (peermem.h): a window over sparse pages. */
#include "peermem.h"

#include <errno.h>
#include <stdlib.h>

#include "hostmem.h"

struct peermem {
    uint64_t base, size, next;
    bus_timing_t t;
    hostmem_t *mem;
};

int peermem_create(peermem_t **out, uint64_t base, uint64_t size, const bus_timing_t *t)
{
    const uint64_t page = HOSTMEM_PAGE_SIZE;
    if (!out || !t || !t->bytes_per_cycle || !size || (base | size) & (page - 1) || base + (size - 1) < base)
        return -EINVAL;
    peermem_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    if (hostmem_create(&p->mem)) {
        free(p);
        return -ENOMEM;
    }
    p->base = base;
    p->size = size;
    p->next = base;
    p->t = *t;
    *out = p;
    return 0;
}

void peermem_destroy(peermem_t *p)
{
    if (p)
        hostmem_destroy(p->mem);
    free(p);
}

uint64_t peermem_base(const peermem_t *p) { return p->base; }
uint64_t peermem_size(const peermem_t *p) { return p->size; }

int peermem_holds(const peermem_t *p, uint64_t addr, uint64_t len)
{
    return addr >= p->base && len <= p->size && addr - p->base <= p->size - len;
}

int peermem_alloc(peermem_t *p, uint64_t size, uint64_t align, uint64_t *addr)
{
    if (!p || !addr || !size || align < HOSTMEM_PAGE_SIZE || (align & (align - 1)))
        return -EINVAL;
    const uint64_t a = (p->next + align - 1) & ~(align - 1);
    if (a < p->next || !peermem_holds(p, a, size))
        return -ENOMEM;
    int rc = hostmem_map(p->mem, a, size);
    if (rc)
        return rc;
    p->next = (a + size + HOSTMEM_PAGE_SIZE - 1) & ~(uint64_t)(HOSTMEM_PAGE_SIZE - 1);
    *addr = a;
    return 0;
}

int peermem_read(const peermem_t *p, uint64_t addr, void *buf, size_t len)
{
    return peermem_holds(p, addr, len) ? hostmem_read(p->mem, addr, buf, len) : -EFAULT;
}

int peermem_write(peermem_t *p, uint64_t addr, const void *buf, size_t len)
{
    return peermem_holds(p, addr, len) ? hostmem_write(p->mem, addr, buf, len) : -EFAULT;
}

static int bus_rd(void *ctx, uint64_t addr, void *buf, size_t len) { return peermem_read(ctx, addr, buf, len); }
static int bus_wr(void *ctx, uint64_t addr, const void *buf, size_t len) { return peermem_write(ctx, addr, buf, len); }
static int bus_tm(void *ctx, uint64_t addr, bus_timing_t *t)
{
    const peermem_t *p = ctx;
    if (!peermem_holds(p, addr, 1))
        return -ENOENT;
    *t = p->t;
    return 0;
}

static const bus_ops_t peermem_bus_ops = {bus_rd, bus_wr, bus_tm};

bus_t peermem_bus(peermem_t *p)
{
    return (bus_t){&peermem_bus_ops, p};
}
