/* exit_code.c — main's return value reaches the console EXIT register. */
#include "console.h"

int main(void)
{
    con_puts("exit_code: returning 42\n");
    return 42;
}
