# The whole import tree of CuPy's runtime module, breadth first: kernel32.dll in System32 (lower
# case there, KERNEL32.dll in the import table), Python's DLLs in the application's directory
# (its vcruntime140.dll before System32's), an API set, and cudart64_110.dll missing, with where
# the standard order finds it.
arg which
arg --root
arg @ROOTS@/win-dllsearch
arg --path
arg C:\tools\cuda\bin
arg --tree
arg /Users/alice/AppData/Local/Programs/Python/Python39/Lib/site-packages/cupy_backends/cuda/api/runtime.cp39-win_amd64.pyd
exit 1
