# Shared by the lessons' experiments/gpu-extras.sh (source it): SASS evidence for the pages.
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

#   cl_sass_ffma_banks BINARY        per kernel in BINARY: its FFMAs (static count) and how many
#                                    read two different registers of one bank from the register
#                                    file. Since Volta the file has two banks (even and odd register
#                                    numbers), and an instruction reading two registers of one bank
#                                    waits a cycle for the second; an operand marked .reuse stays
#                                    in its slot's operand cache for the next instruction, which
#                                    then reads it from there, not from the file.
cl_sass_ffma_banks() {
  cuobjdump -sass "$1" | awk '
    function report() {
      if (name != "" && ffma)
        printf "%-44s FFMA %5d  two reads in one bank %5d (%.1f%%)\n", name, ffma, same, 100 * same / ffma
    }
    /Function :/ { report(); name = $3; ffma = same = 0; split("", cached); next }
    /^ +\/\*[0-9a-f]+\*\// {
      line = $0
      sub(/^ +\/\*[0-9a-f]+\*\/ +/, "", line); sub(/ *;.*/, "", line)
      opcode = line; sub(/ .*/, "", opcode)
      if (opcode != "FFMA") { split("", cached); next }
      ffma++
      operands = line; sub(/^[^ ]+ +/, "", operands)
      n = split(operands, op, / *, */)
      split("", reads); split("", kept)
      for (k = 2; k <= n; k++) {          # op[1] is the destination
        reg = op[k]; reuse = sub(/\.reuse/, "", reg)
        if (reg !~ /^R[0-9]+$/) continue  # RZ, constants, immediates
        if (reuse) kept[k] = reg
        if (cached[k] != reg) reads[reg] = 1
      }
      even = odd = 0
      for (reg in reads) { if (substr(reg, 2) % 2) odd++; else even++ }
      if (even >= 2 || odd >= 2) same++
      split("", cached); for (k in kept) cached[k] = kept[k]
    }
    END { report() }'
}
