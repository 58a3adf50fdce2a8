"""The peer of bench/frameworks.sh: what a Python tool does to list the frameworks of every
environment without importing them. For each site directory given: every distribution's
metadata through importlib.metadata (name, version, requirements), and the build files
gpudoctor reads (TensorFlow's build_info.py, torch/version.py, jax and jaxlib version.py)
evaluated with ast.literal_eval. Prints one line per framework distribution found.

Usage: python3 -I frameworks_peer.py SITE_DIR...
"""
import ast
import importlib.metadata as md
import os
import sys

FRAMEWORKS = {
    "tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "keras", "tf-keras",
    "torch", "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda12-pjrt", "cupy-cuda12x",
    "onnxruntime", "onnxruntime-gpu", "tensorrt",
}
BUILD_FILES = {
    "tensorflow": "tensorflow/python/platform/build_info.py",
    "tensorflow-cpu": "tensorflow/python/platform/build_info.py",
    "torch": "torch/version.py",
    "jax": "jax/version.py",
    "jaxlib": "jaxlib/version.py",
}


def literals(path):
    """Top-level literal assignments of a Python file, as gpudoctor's reader keeps them."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    values = {}
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            if isinstance(t, ast.Name):
                try:
                    values[t.id] = ast.literal_eval(value)
                except ValueError:
                    values[t.id] = None
    return values


def main(sites):
    found = 0
    for site in sites:
        for dist in md.distributions(path=[site]):
            name = (dist.metadata["Name"] or "").lower().replace("_", "-")
            if name not in FRAMEWORKS:
                continue
            requires = dist.requires or []
            build = {}
            if name in BUILD_FILES:
                build = literals(os.path.join(site, BUILD_FILES[name]))
            found += 1
            print(name, dist.version, len(requires), sorted(build)[:3])
    print("frameworks:", found, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
