# LoadLibrary("kernel32") of a program (no --from; --os windows): ".dll" appended as LoadLibrary
# does, the application's directory not known, System32 found.
arg which
arg --os
arg windows
arg --root
arg @ROOTS@/win-dllsearch
arg kernel32
exit 0
