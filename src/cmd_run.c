/* run / coll / train: being written (temporary placeholder so the tree links while the core lands). */
#include <stdio.h>

#include "commands.h"

int cmd_run(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "nvscale %s: not implemented yet\n", argv[0]);
    return 1;
}
int cmd_coll(int argc, char **argv) { return cmd_run(argc, argv); }
