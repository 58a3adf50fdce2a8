/* gpudoctor plan: the newest releases of a framework that run here, and what to upgrade. */
#include "cli/cli.h"

#include <gpudoctor/advise.h>

static const char usage[] =
    "Usage: gpudoctor plan FRAMEWORK [OPTIONS]\n"
    "\n"
    "The newest releases of FRAMEWORK (tensorflow, torch, jax) that run on this machine, with\n"
    "their install commands; the newer releases and what each needs; the driver to upgrade to\n"
    "for the newest one its GPUs allow. From the knowledge base; every statement names its\n"
    "source.\n"
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
    "Exit status: 0 a release that runs was found, 1 none runs, 3 the knowledge base cannot\n"
    "tell, 2 usage or internal error.\n";

int gd_cmd_plan(int argc, char **argv)
{
    return gd_cli_advise(argc, argv, "plan", usage, gd_plan);
}
