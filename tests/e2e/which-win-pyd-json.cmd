# The same as JSON (gpudoctor.which-win/1).
arg which
arg --json
arg --root
arg @ROOTS@/win-dllsearch
arg --env
arg PATH=C:\WINDOWS\system32;C:\WINDOWS;C:\tools\cuda\bin
arg --from
arg /Users/alice/AppData/Local/Programs/Python/Python39/Lib/site-packages/cupy_backends/cuda/api/runtime.cp39-win_amd64.pyd
arg cudart64_110.dll
exit 1
json
