# With os.add_dll_directory(r"C:\tools\cuda\bin") (--dll-dir) the extension order finds it, the
# directory spelled in another case than the tree's (Windows compares names without case).
arg which
arg --root
arg @ROOTS@/win-dllsearch
arg --dll-dir
arg C:\TOOLS\CUDA\BIN
arg --from
arg /Users/alice/AppData/Local/Programs/Python/Python39/Lib/site-packages/cupy_backends/cuda/api/runtime.cp39-win_amd64.pyd
arg CUDART64_110.DLL
exit 0
