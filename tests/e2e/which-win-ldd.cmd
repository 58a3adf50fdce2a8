# The same tree in ldd's line format, the modules in load order, the missing where first needed.
arg which
arg --root
arg @ROOTS@/win-dllsearch
arg --ldd
arg /Users/alice/AppData/Local/Programs/Python/Python39/Lib/site-packages/cupy_backends/cuda/libs/cublas.cp39-win_amd64.pyd
exit 1
