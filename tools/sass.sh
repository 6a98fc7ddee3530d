# Shared by the lessons' tests/gpu-extras.sh (source it): SASS evidence for the pages.
#   cl_sass_opcodes BINARY KERNELS   the opcodes (modifiers dropped) of the kernels whose name
#                                    matches the regex KERNELS in BINARY, counted, most frequent
#                                    first (a static count of the code, not of what runs)
cl_sass_opcodes() {
  cuobjdump -sass "$1" |
    awk -v k="$2" '/Function : / {f = ($0 ~ k); next}
                   f && /\/\*[0-9a-f]+\*\// {op = $2; if (op ~ /^@/) op = $3; sub(/\..*/, "", op);
                                            sub(/;$/, "", op); print op}' |
    sort | uniq -c | sort -rn
}
