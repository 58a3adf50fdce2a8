/* gpudoctor compat: what a version needs, and whether this machine (or a described one) can
 * run it. */
#include "cli/cli.h"

#include <gpudoctor/advise.h>

static const char usage[] =
    "Usage: gpudoctor compat NAME[==VERSION] [OPTIONS]\n"
    "       gpudoctor compat 'GPU MODEL' [OPTIONS]\n"
    "\n"
    "What a version needs and whether this machine can run it, from the knowledge base:\n"
    "tensorflow==2.15, torch==2.1.0 (or torch==2.1.0+cu121 for one wheel), jax, cuda==12.4,\n"
    "cudnn==8.9; a bare name for every version it knows; or a GPU model ('Tesla K80').\n"
    "Every statement names its source.\n"
    "\n"
    "The machine is this one (or --root DIR) unless one of these describes another; what is\n"
    "not described is unknown:\n"
    "  --driver VERSION    its NVIDIA driver (470.82, 535.104.05)\n"
    "  --gpu MODEL         a GPU, its compute capability from the knowledge base (repeatable)\n"
    "  --cc X.Y            a GPU by compute capability (repeatable)\n"
    "  --os linux|windows  its operating system (native Windows; default linux)\n"
    "\n"
    "Options:\n"
    "  --root DIR          judge the tree at DIR (its driver and GPUs) instead of this machine\n"
    "  --kb DIR            knowledge-base tables in DIR replace the embedded ones\n"
    "  --json              the answer as JSON (docs/compat.md)\n"
    "  --color WHEN        auto (default), always or never; --no-color\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 it can run it, 1 it cannot, 3 the knowledge base cannot tell (or, for a\n"
    "GPU model, does not know it), 2 usage or internal error.\n";

int gd_cmd_compat(int argc, char **argv)
{
    return gd_cli_advise(argc, argv, "compat", usage, gd_compat);
}
