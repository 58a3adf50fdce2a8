# Windows (tests/fixtures/roots/win-dllsearch, a Windows tree: told from its Windows/System32):
# CuPy's runtime extension module imports cudart64_110.dll, which is only in C:\tools\cuda\bin on
# PATH. Python 3.8+ loads the module in the extension order (the default for a .pyd), which does
# not search PATH: not found, every place tried in order, where the standard order finds it, and
# the fix.
arg which
arg --root
arg @ROOTS@/win-dllsearch
arg --env
arg PATH=C:\WINDOWS\system32;C:\WINDOWS;C:\tools\cuda\bin
arg --from
arg /Users/alice/AppData/Local/Programs/Python/Python39/Lib/site-packages/cupy_backends/cuda/api/runtime.cp39-win_amd64.pyd
arg cudart64_110.dll
exit 1
