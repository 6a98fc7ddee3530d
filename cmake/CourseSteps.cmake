# A lesson page's versions table, read the one way that the course map (docs/pages.cmake) and the
# short `run` (CudaLessons.cmake) both need: its rows "| `vK_name.cu` | step | …", where step is
# core, optional, loss or superseded (a lesson whose table has no such column yet reads unmarked).
include_guard(GLOBAL)

# The lines of TEXT as a CMake list: a ';' or an unmatched '[' or ']' in the text would break the
# list at the wrong places, so they travel as ' ', '(' and ')'.
function(cl_text_lines out text)
  string(REPLACE ";" " " text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# Sets OUT to the rows of TEXT's versions table in order, each "stem|step" (step empty where the
# row names none).
function(cl_page_versions out text)
  cl_text_lines(lines "${text}")
  set(rows "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^\\| `(v[0-9]+_[a-z0-9_]+)(\\.cu)?` \\|([^|]*)\\|")
      set(stem "${CMAKE_MATCH_1}")
      string(STRIP "${CMAKE_MATCH_3}" step)
      if(step MATCHES "^(core|optional|loss|superseded)")
        set(step "${CMAKE_MATCH_1}")
      else()
        set(step "")
      endif()
      list(APPEND rows "${stem}|${step}")
    endif()
  endforeach()
  set(${out} "${rows}" PARENT_SCOPE)
endfunction()
