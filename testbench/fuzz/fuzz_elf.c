/* fuzz_elf.c — libFuzzer harness of the firmware ELF loader (elf_load_mem)
 * over the firmware core's memory map (its RAM, register windows), and of the
 * symbol reader fw-profile uses (elf_read_functions). Beyond "no crash, no
 * sanitizer report", it holds the loader's contract (elf_load.h): on a
 * refusal not one byte of RAM is written and the message names the image;
 * on success every loaded byte lies in [lo, hi) inside RAM, the entry point
 * is in it, and RAM outside [lo, hi) is untouched. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_load.h"
#include "elf_syms.h"
#include "hca_abi.h"

#define NAME "fuzz.elf"
#define FILL 0xa5

/* Small enough to keep each run fast; the map's shape is fwcore's. */
#define RAM_BASE HCA_FW_RAM_BASE
#define RAM_SIZE (64u << 10)

static uint8_t ram[RAM_SIZE];
static char path[64];

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const elf_window_t win[] = {
        {HCA_CONSOLE_BASE, 8, "console"},
        {HCA_DEVREG_BASE, HCA_DEVREG_SIZE, "device registers"},
    };
    const elf_ram_t r = {RAM_BASE, RAM_SIZE, ram, "firmware RAM"};
    const elf_memmap_t map = {&r, 1, win, sizeof win / sizeof win[0], ELF_LOAD_RV32IM_REJECT_EFLAGS};
    memset(ram, FILL, sizeof ram);
    elf_load_info_t info;
    char err[512];
    err[0] = 0;
    int rc = elf_load_mem(data, size, NAME, &map, &info, err, sizeof err);
    if (rc) {
        if (rc != -ENOEXEC && rc != -ENOMEM) {
            fprintf(stderr, "refusal with %d (expected -ENOEXEC): %s\n", rc, err);
            abort();
        }
        if (strncmp(err, NAME ": ", strlen(NAME ": "))) {
            fprintf(stderr, "refusal message does not name the image: '%s'\n", err);
            abort();
        }
        for (size_t i = 0; i < sizeof ram; i++)
            if (ram[i] != FILL) {
                fprintf(stderr, "refused (%s), yet RAM byte 0x%zx was written\n", err, RAM_BASE + i);
                abort();
            }
    } else {
        if (info.nload == 0 || info.lo < RAM_BASE || info.hi > (uint64_t)RAM_BASE + RAM_SIZE || info.lo >= info.hi ||
            info.entry < info.lo || info.entry >= info.hi || info.entry % 4) {
            fprintf(stderr, "accepted: %u segments, [0x%x, 0x%llx), entry 0x%x outside the contract\n", info.nload,
                    info.lo, (unsigned long long)info.hi, info.entry);
            abort();
        }
        for (uint64_t a = RAM_BASE; a < (uint64_t)RAM_BASE + RAM_SIZE; a++)
            if ((a < info.lo || a >= info.hi) && ram[a - RAM_BASE] != FILL) {
                fprintf(stderr, "accepted [0x%x, 0x%llx), yet RAM byte 0x%llx outside it was written\n", info.lo,
                        (unsigned long long)info.hi, (unsigned long long)a);
                abort();
            }
    }
    /* The symbol reader takes a path: the same bytes through a file. */
    if (!path[0]) {
        snprintf(path, sizeof path, "/dev/shm/fuzz_elf.%d", (int)getpid()); /* tmpfs: one write per run */
        atexit(remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
        elf_func_t *fn = NULL;
        size_t n = 0;
        if (elf_read_functions(path, &fn, &n) == 0) {
            for (size_t i = 0; i < n; i++)
                if (!elf_func_at(fn, n, fn[i].addr)) {
                    fprintf(stderr, "function %s at 0x%x listed, yet not found at its address\n", fn[i].name,
                            fn[i].addr);
                    abort();
                }
            free(fn);
        }
    }
    return 0;
}
