/* fuzz_scenario.c — libFuzzer harness of the scenario parser and validator
 * (scn_load_text: every line parsed, every op's fields, types, enums and name
 * bindings checked). Beyond "no crash, no sanitizer report", it holds the
 * loader's contract (scenario.h): a refusal is SCN_ERROR with no scenario and
 * a message "NAME:LINE: reason" naming a line of the input; an acceptance has
 * a scenario with no more ops than lines (an empty file is a scenario of none). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

#define NAME "fuzz.jsonl"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    scn_t *s = NULL;
    char err[1024];
    err[0] = 0;
    int rc = scn_load_text(NAME, (const char *)data, size, &s, err, sizeof err);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (rc == SCN_PASS) {
        if (!s || scn_op_count(s) > lines) {
            fprintf(stderr, "accepted with %zu ops over %zu lines (scn %p)\n", s ? scn_op_count(s) : 0, lines,
                    (void *)s);
            abort();
        }
        scn_free(s);
        return 0;
    }
    unsigned long line = 0;
    if (rc != SCN_ERROR || s || strncmp(err, NAME ":", strlen(NAME ":")) ||
        (line = strtoul(err + strlen(NAME ":"), NULL, 10)) > lines) {
        fprintf(stderr, "refusal breaks the contract: rc %d, scn %p, %zu lines, message '%s'\n", rc, (void *)s,
                lines, err);
        abort();
    }
    return 0;
}
