# The standard order (--mode standard: LoadLibrary, Python 3.7 and earlier): the application's
# directory (python.exe's), System32, System, Windows, the current directory (not known under
# --root), then PATH, where it is found.
arg which
arg --root
arg @ROOTS@/win-dllsearch
arg --mode
arg standard
arg --path
arg C:\WINDOWS\system32;C:\WINDOWS;C:\tools\cuda\bin
arg --from
arg /Users/alice/AppData/Local/Programs/Python/Python39/Lib/site-packages/cupy_backends/cuda/api/runtime.cp39-win_amd64.pyd
arg cudart64_110.dll
exit 0
