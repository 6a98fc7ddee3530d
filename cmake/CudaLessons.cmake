# cuda-lessons build plumbing: GPU architectures, the common library, and one function that turns a
# lesson folder into executables, tests and a runner target.
include_guard(GLOBAL)

# ---- Architectures (must be decided before project() enables CUDA) ------------------------------
# A user with a GPU gets code for that GPU without naming it; a machine with no GPU (CI) builds
# sm_75 and sm_90 (each as machine code plus PTX, so newer GPUs can JIT). CMAKE_CUDA_ARCHITECTURES
# and the CUDAARCHS environment variable override as usual. We do not use "native": CMake 3.25
# stops with an error on a machine that has no GPU.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(_cl_archs "75;90")
  find_program(_cl_nvidia_smi nvidia-smi)
  if(_cl_nvidia_smi)
    execute_process(COMMAND ${_cl_nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _cl_caps RESULT_VARIABLE _cl_smi_rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_cl_smi_rc EQUAL 0 AND _cl_caps MATCHES "^[0-9]+\\.[0-9]+")
      string(REPLACE "." "" _cl_caps "${_cl_caps}")
      string(REPLACE "\n" ";" _cl_caps "${_cl_caps}")
      list(REMOVE_DUPLICATES _cl_caps)
      set(_cl_archs "${_cl_caps}")
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_cl_archs}" CACHE STRING "GPU architectures to build for")
  message(STATUS "cuda-lessons: building for CUDA architectures ${_cl_archs}")
endif()

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()
set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)

set(CUDA_LESSONS_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "")
cmake_path(NORMAL_PATH CUDA_LESSONS_ROOT)

# Hopper's own instructions (wgmma, setmaxnreg) exist only in code for sm_90a, which runs on
# compute capability 9.0 alone. For each target given, 90 in the architectures becomes 90a, and
# CL_HAS_SM90A=1 tells its host code that such code is there (without it the kernels are empty and
# the program skips, exit 77).
function(cuda_lessons_use_sm90a)
  set(archs "")
  set(has_sm90a OFF)
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^90(a)?(-real|-virtual)?$")
      string(REGEX REPLACE "^90a?" "90a" arch "${arch}")
      set(has_sm90a ON)
    endif()
    list(APPEND archs "${arch}")
  endforeach()
  foreach(target IN LISTS ARGN)
    set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${archs})
    if(has_sm90a)
      target_compile_definitions(${target} PRIVATE CL_HAS_SM90A=1)
    endif()
  endforeach()
endfunction()

# ---- A lesson's description ----------------------------------------------------------------------
# NN-topic/description.txt (docs/DESCRIPTION.md) declares each version's parent, part, kind and GPU
# need, and each exercise's GPU: the build reads them there, never from the sources. Sets, in the
# caller, DESC_PROGRAMS (the described programs: vN_name and exercise_<name>), DESC_<program>_<field>
# for field parent, part, kind and gpu, and DESC_DEFAULT_gpu (for a program it does not describe: a
# student's homework copy).
function(cuda_lessons_read_description dir)
  set(path "${dir}/description.txt")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "cuda-lessons: ${path} is missing: every lesson declares its versions there "
                        "(docs/DESCRIPTION.md)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
  # only the records the build uses (a path's free text may hold anything)
  file(STRINGS "${path}" lines REGEX "^(version|exercise|default)( |$)")
  set(programs "")
  set(DESC_DEFAULT_gpu "any" PARENT_SCOPE)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "#.*$" "" line "${line}")
    if(line MATCHES "^(version|exercise) +([a-z0-9_]+)(.*)$")
      set(program "${CMAKE_MATCH_2}")
      set(fields " ${CMAKE_MATCH_3} ")
      if(CMAKE_MATCH_1 STREQUAL "exercise")
        set(program "exercise_${program}")
      endif()
      list(APPEND programs "${program}")
    elseif(line MATCHES "^default(.*)$")
      set(program "DEFAULT")
      set(fields " ${CMAKE_MATCH_1} ")
    else()
      continue()
    endif()
    foreach(field parent part kind gpu)
      if(fields MATCHES " ${field}=([^ ]+)")
        set(DESC_${program}_${field} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      elseif(NOT program STREQUAL "DEFAULT")
        set(DESC_${program}_${field} "" PARENT_SCOPE)
      endif()
    endforeach()
  endforeach()
  set(DESC_PROGRAMS "${programs}" PARENT_SCOPE)
endfunction()

# ---- Once per build tree ------------------------------------------------------------------------
macro(cuda_lessons_setup)
  if(NOT TARGET cl_common)
    set(CMAKE_C_STANDARD 11)
    set(CMAKE_C_EXTENSIONS ON) # gmtime_r, getopt_long
    set(CMAKE_CUDA_STANDARD 17)
    find_package(CUDAToolkit 12.0 REQUIRED)
    enable_testing()
    # Warnings on everywhere; CI (and anyone who wants it) turns them into errors, so the build
    # stays warning-free. Off by default: a student's newer compiler may warn where gcc 12 does not.
    option(CUDA_LESSONS_WERROR "Treat every compiler warning (C, host and device CUDA) as an error" OFF)
    add_compile_options("$<$<COMPILE_LANGUAGE:C>:-Wall;-Wextra>"
                        "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>")
    if(CUDA_LESSONS_WERROR)
      add_compile_options("$<$<COMPILE_LANGUAGE:C>:-Werror>"
                          "$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings;-Xcompiler=-Werror>")
    endif()
    set(CUDA_LESSONS_GPU_TESTS AUTO CACHE STRING
        "Register the gpu and sanitize tests with CTest: AUTO (where nvidia-smi sees a GPU), ON, OFF")
    set_property(CACHE CUDA_LESSONS_GPU_TESTS PROPERTY STRINGS AUTO ON OFF)
    # the pages engine (docs/pages.py), the figures and the site's checks are Python 3, standard
    # library only
    find_program(CUDA_LESSONS_PYTHON3 python3)
    if(NOT CUDA_LESSONS_PYTHON3)
      message(FATAL_ERROR "cuda-lessons: python3 not found: the pages engine (docs/pages.py) and "
                          "the tests that read the lessons' descriptions need it (any Python 3, no "
                          "packages)")
    endif()
    find_program(CUDA_LESSONS_SANITIZER compute-sanitizer
                 HINTS "${CUDAToolkit_BIN_DIR}" "${CUDAToolkit_BIN_DIR}/../compute-sanitizer")
    add_subdirectory("${CUDA_LESSONS_ROOT}/common" "${CMAKE_BINARY_DIR}/common")
  endif()
endmacro()

function(_cl_add_expect_test name code regex)
  cmake_parse_arguments(T "" "LABEL" "COMMAND;ENVIRONMENT" ${ARGN})
  add_test(NAME ${name} COMMAND cl_expect ${code} "${regex}" -- ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABEL}" SKIP_RETURN_CODE 77)
  if(T_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENVIRONMENT}")
  endif()
endfunction()

# A target KIND-<lesson> (results, sweep, exercises) that runs cl_runner with ARGN into
# docs/results/CSV and regenerates the pages from it: needs a GPU. The runner's command is also
# kept for the target KIND of every lesson (cuda_lessons_finish), which runs them one after the
# other, never side by side (they time the GPU), then regenerates the pages once.
function(_cl_add_measure_target kind lesson csv what programs)
  set(runner_command COMMAND $<TARGET_FILE:cl_runner> --csv
                             "${CUDA_LESSONS_ROOT}/docs/results/${csv}" ${ARGN})
  add_custom_target(${kind}-${lesson}
                    COMMAND ${CMAKE_COMMAND} -E make_directory "${CUDA_LESSONS_ROOT}/docs/results"
                    ${runner_command}
                    COMMAND ${CUDA_LESSONS_PYTHON3} "${CUDA_LESSONS_ROOT}/docs/pages.py" update
                    DEPENDS ${programs} cl_runner USES_TERMINAL VERBATIM
                    COMMENT "${what} into docs/results/${csv} (needs a GPU)")
  # the runner's arguments, one a line, for scripts (tools/ceiling-check.sh, and
  # tools/multi-gpu-check.sh, which can run a measurement's cases in parts on several GPUs)
  list(JOIN ARGN "\n" measure_lines)
  file(WRITE "${CMAKE_BINARY_DIR}/measure/${lesson}-${kind}.args" "${measure_lines}\n")
  set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_${kind}_COMMANDS ${runner_command})
  set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_${kind}_PROGRAMS ${programs})
endfunction()

# cuda_lessons_add_lesson(
#   NAME 03-reduction                  folder name, also bin/<NAME>/ and the target suffixes
#   HARNESS main.cu reference.c        the lesson's harness, built once and linked into every program
#   LIBRARIES ...                      libraries every program links (e.g. CUDA::cublas)
#   RUN_CASES "--n 2^20" ...           the runner's cases (each becomes one table)
#   HEADLINE_CASE "--n 2^28"           the case that the short `run` (README's main command) runs,
#                                      with the core path of the lesson's pages and the library
#                                      (default: the first of RUN_CASES)
#   TEST_CASES name "args" ...         gpu tests: every program with these arguments
#   LARGE_TEST_CASES name "args" ...   the same, run one at a time (big memory)
#   SANITIZE_ARGS ...                  arguments for the compute-sanitizer runs (a small size)
#   SANITIZE_MORE name "args" ...      more sanitizer runs, as sanitize-<name>-<tool> (another
#                                      code path: an aligned shape that takes the fast copies)
#   BAD_INPUTS name code "regex" "args" ...  lesson-specific bad inputs (cpu tests)
#   GPU_BAD_INPUTS name code "regex" "args" ...  the same, refused only once the device is known
#                                      (its memory, say): gpu tests
#   REFUSED stem/case "regex" ...      a gpu test case that this program must refuse (exit 2,
#                                      one line matching regex): a library's limit, say
#   EXCLUDE file.cu ...                v*/baseline_* files not to build (a library not found)
#   NO_MEMORY_LIMIT_TEST               the lesson caps --n below any machine's memory (no such test)
#   MEMORY_LIMIT_ON_DEVICE             the host never holds the inputs (they are made on their way to
#                                      the GPU): a size too large is refused against the device's
#                                      memory, so that test needs a GPU
#   SWEEP_VERSIONS v10_x baseline_y    the programs of the lesson's sweep (its best versions and the
#   SWEEP_CASES "--n 1024" ...         library) and its cases: `sweep-<lesson>` runs them into
#                                      docs/results/<lesson>-sweep.csv, `sweep` every lesson's; a
#                                      case "versions: v14_y baseline_y" names the programs of the
#                                      cases after it (a lesson's second path)
#   EXERCISE_VERSIONS v8_x baseline_y  the programs an exercise's solution is measured beside, and
#   EXERCISE_CASES "--n 2^20" ...      its cases: `exercises-<lesson>` runs them and every solution
#                                      into docs/results/<lesson>-exercises.csv
# Every exercises/<name>.cu (a checked solution of an exercise) becomes bin/<NAME>/exercise_<name>,
# tested like a version (gpu and sanitize), but the runner's table leaves it out.
# Every v<N>_*.cu and baseline_*.cu in the folder becomes bin/<NAME>/<stem>, is tested and joins
# the runner; a new file is picked up at the next build (the glob is CONFIGURE_DEPENDS).
function(cuda_lessons_add_lesson)
  cmake_parse_arguments(L "NO_MEMORY_LIMIT_TEST;MEMORY_LIMIT_ON_DEVICE" "NAME;HEADLINE_CASE"
                        "HARNESS;LIBRARIES;RUN_CASES;TEST_CASES;LARGE_TEST_CASES;SANITIZE_ARGS;SANITIZE_MORE;BAD_INPUTS;GPU_BAD_INPUTS;REFUSED;EXCLUDE;SWEEP_VERSIONS;SWEEP_CASES;EXERCISE_VERSIONS;EXERCISE_CASES"
                        ${ARGN})
  set(lesson ${L_NAME})
  cmake_language(DEFER CALL _cl_collect_gpu_tests)
  set(bin_dir "${CMAKE_BINARY_DIR}/bin/${lesson}")
  file(GLOB programs CONFIGURE_DEPENDS RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}"
       "${CMAKE_CURRENT_SOURCE_DIR}/v[0-9]*_*.cu" "${CMAKE_CURRENT_SOURCE_DIR}/baseline_*.cu")
  list(SORT programs COMPARE NATURAL)
  if(L_EXCLUDE)
    list(REMOVE_ITEM programs ${L_EXCLUDE})
  endif()
  file(GLOB solutions CONFIGURE_DEPENDS RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}"
       "${CMAKE_CURRENT_SOURCE_DIR}/exercises/*.cu")
  list(SORT solutions)
  # homework that must fail its grade (tests/homework/*.cu: a racy copy, a wrong one), built as
  # bin/<NAME>/homework_<name> for the grader's own tests; no test or runner table lists them
  file(GLOB homework CONFIGURE_DEPENDS RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}"
       "${CMAKE_CURRENT_SOURCE_DIR}/tests/homework/*.cu")
  list(SORT homework)
  cuda_lessons_read_description("${CMAKE_CURRENT_SOURCE_DIR}")

  # A deleted version must not live on in bin/ (the runner runs what it finds there).
  file(GLOB stale LIST_DIRECTORIES false "${bin_dir}/v[0-9]*_*" "${bin_dir}/baseline_*"
       "${bin_dir}/exercise_*" "${bin_dir}/homework_*")
  foreach(old IN LISTS stale)
    get_filename_component(old_stem "${old}" NAME)
    string(REGEX REPLACE "^exercise_" "exercises/" old_source "${old_stem}")
    string(REGEX REPLACE "^homework_" "tests/homework/" old_source "${old_source}")
    if(NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${old_source}.cu")
      file(REMOVE "${old}")
    endif()
  endforeach()

  add_library(${lesson}_harness STATIC ${L_HARNESS})
  target_include_directories(${lesson}_harness PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${lesson}_harness PUBLIC cl_common ${L_LIBRARIES})

  set(targets "")
  set(solution_targets "")
  foreach(source IN LISTS programs solutions homework)
    get_filename_component(stem "${source}" NAME_WE)
    if(source MATCHES "^exercises/")
      set(stem exercise_${stem})
    elseif(source MATCHES "^tests/homework/")
      set(stem homework_${stem})
    endif()
    set(target ${lesson}_${stem})
    add_executable(${target} "${source}")
    target_link_libraries(${target} PRIVATE ${lesson}_harness)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${stem}
                          RUNTIME_OUTPUT_DIRECTORY "${bin_dir}")
    # its grade (tools/grade.py: correct everywhere, clean, and how fast beside its parent and
    # the library), built first so that the build's warnings show above the report card
    add_custom_target(grade-${lesson}-${stem}
                      COMMAND ${CUDA_LESSONS_PYTHON3} "${CUDA_LESSONS_ROOT}/tools/grade.py"
                              --build "${CMAKE_BINARY_DIR}" --no-build ${lesson} ${stem}
                      DEPENDS ${target} cl_runner cl_sanitize USES_TERMINAL VERBATIM
                      COMMENT "Grading ${lesson}/${stem}")
    # what the description says the program needs (a version or solution it does not describe, a
    # student's copy, gets the lesson's default, said once at configure)
    set(gpu "")
    if(stem IN_LIST DESC_PROGRAMS)
      set(gpu "${DESC_${stem}_gpu}")
    elseif(NOT stem MATCHES "^(baseline|homework)_")
      set(gpu "${DESC_DEFAULT_gpu}")
      message(STATUS "cuda-lessons: ${lesson}/${source} is not in ${lesson}/description.txt, so "
                     "it is built as the lesson's default version (gpu=${DESC_DEFAULT_gpu}), as a "
                     "copy of the version its page suggests should be; a copy of one that needs "
                     "more (sm_90a, say) needs that version's line there, with the name "
                     "and parent changed: version ${stem} parent=vK part=P kind=optional gpu=G ...")
    endif()
    if(gpu STREQUAL "sm_90a")
      cuda_lessons_use_sm90a(${target}) # wgmma and setmaxnreg: code for sm_90a
    endif()
    set(case_kinds TEST_CASES LARGE_TEST_CASES)
    if(source MATCHES "^exercises/")
      list(APPEND solution_targets ${target})
      set(case_kinds TEST_CASES) # a solution is checked like a version, at the awkward sizes
    elseif(source MATCHES "^tests/homework/")
      continue() # graded, never tested: it is wrong on purpose
    else()
      list(APPEND targets ${target})
    endif()

    # gpu: every program at awkward and large sizes (skipped with 77 where there is no device)
    foreach(cases_kind IN LISTS case_kinds)
      set(cases ${L_${cases_kind}})
      while(cases)
        list(POP_FRONT cases case_name case_args)
        separate_arguments(case_args UNIX_COMMAND "${case_args}")
        list(FIND L_REFUSED "${stem}/${case_name}" refused_at)
        if(refused_at GREATER -1)
          math(EXPR refused_at "${refused_at} + 1")
          list(GET L_REFUSED ${refused_at} refused_regex)
          _cl_add_expect_test(${lesson}/${stem}/${case_name} 2 "${refused_regex}" LABEL gpu
                              COMMAND $<TARGET_FILE:${target}> ${case_args} --repeat 1 --warmup 0)
          continue()
        endif()
        add_test(NAME ${lesson}/${stem}/${case_name}
                 COMMAND ${target} ${case_args} --repeat 1 --warmup 0)
        set_tests_properties(${lesson}/${stem}/${case_name} PROPERTIES LABELS gpu
                             SKIP_RETURN_CODE 77)
        if(cases_kind STREQUAL "LARGE_TEST_CASES")
          # a card (or host) too small for the case: the program's one line says so, and the test
          # is reported skipped, not failed; labelled large too, so that `-LE large` leaves out
          # the cases that take minutes
          set_tests_properties(${lesson}/${stem}/${case_name} PROPERTIES RUN_SERIAL TRUE
                               LABELS "gpu;large"
                               SKIP_REGULAR_EXPRESSION "needs [^\n]* of (device|host) memory")
        endif()
      endwhile()
    endforeach()

    # sanitize: memcheck, racecheck, synccheck at a small size (and at the lesson's further
    # shapes), checked but not timed
    list(JOIN L_SANITIZE_ARGS " " base_args)
    set(sanitize_runs default "${base_args}" ${L_SANITIZE_MORE})
    while(sanitize_runs)
      list(POP_FRONT sanitize_runs run_name run_args)
      separate_arguments(run_args UNIX_COMMAND "${run_args}")
      set(prefix sanitize-${run_name}-)
      if(run_name STREQUAL "default")
        set(prefix sanitize-)
      endif()
      foreach(tool memcheck racecheck synccheck)
        set(test ${lesson}/${stem}/${prefix}${tool})
        # without compute-sanitizer (or a device) cl_sanitize exits 77: reported as skipped
        add_test(NAME ${test} COMMAND cl_sanitize "${CUDA_LESSONS_SANITIZER}" ${tool}
                 $<TARGET_FILE:${target}> ${run_args} --repeat 0)
        set_tests_properties(${test} PROPERTIES LABELS sanitize SKIP_RETURN_CODE 77)
      endforeach()
    endwhile()
  endforeach()

  # cpu: the error paths every program shares, exercised on the first version (a baseline may
  # refuse a size before the harness gets to check it)
  list(GET targets 0 first)
  foreach(target IN LISTS targets)
    if(target MATCHES "^${lesson}_v[0-9]")
      set(first ${target})
      break()
    endif()
  endforeach()
  set(p $<TARGET_FILE:${first}>)
  set(t ${lesson}/options)
  _cl_add_expect_test(${t}/help 0 "--n SIZE.*--repeat R.*--warmup W.*--seed S.*--device D.*--csv.*--no-check"
                      LABEL cpu COMMAND ${p} --help)
  _cl_add_expect_test(${t}/help-short 0 "--n SIZE.*--help" LABEL cpu COMMAND ${p} -h)
  _cl_add_expect_test(${t}/unknown-option 2 "--bogus: unknown" LABEL cpu COMMAND ${p} --bogus)
  _cl_add_expect_test(${t}/missing-value 2 "--n: missing value" LABEL cpu COMMAND ${p} --n)
  _cl_add_expect_test(${t}/not-a-number 2 "--n abc: not a size" LABEL cpu COMMAND ${p} --n abc)
  _cl_add_expect_test(${t}/trailing-garbage 2 "--n 16Mx: not a size" LABEL cpu COMMAND ${p} --n 16Mx)
  _cl_add_expect_test(${t}/zero-size 2 "--n 0: the size must be at least 1" LABEL cpu
                      COMMAND ${p} --n 0)
  _cl_add_expect_test(${t}/negative-size 2 "--n -5: not a size" LABEL cpu COMMAND ${p} --n -5)
  _cl_add_expect_test(${t}/size-overflows-64-bits 2 "--n 2\\^64: not a size" LABEL cpu
                      COMMAND ${p} --n 2^64)
  _cl_add_expect_test(${t}/buffers-overflow 2 "--n 2\\^62: " LABEL cpu
                      COMMAND ${p} --n 2^62)
  _cl_add_expect_test(${t}/bad-repeat 2 "--repeat x: expected a whole number" LABEL cpu
                      COMMAND ${p} --repeat x)
  _cl_add_expect_test(${t}/negative-warmup 2 "--warmup -1: expected a whole number" LABEL cpu
                      COMMAND ${p} --warmup -1)
  _cl_add_expect_test(${t}/bad-seed 2 "--seed 1.5: expected a whole number" LABEL cpu
                      COMMAND ${p} --seed 1.5)
  _cl_add_expect_test(${t}/bad-device 2 "--device gpu0: expected a device index" LABEL cpu
                      COMMAND ${p} --device gpu0)
  _cl_add_expect_test(${t}/stray-argument 2 "extra: unexpected argument" LABEL cpu
                      COMMAND ${p} extra)
  _cl_add_expect_test(${t}/no-device 77 "^no CUDA device found" LABEL cpu
                      COMMAND ${p} --n 1000 ENVIRONMENT CUDA_VISIBLE_DEVICES=-1)
  # these two need a device to get past device selection
  _cl_add_expect_test(${t}/device-out-of-range 2 "--device 999: no such device" LABEL gpu
                      COMMAND ${p} --device 999)
  # a size no machine's memory holds is bad input before any device is looked for, so this runs
  # anywhere (the device's own limit, checked next, is cl_fits_device_memory: a unit test); where
  # the host never holds the inputs, the device's limit is the one that refuses it
  if(L_MEMORY_LIMIT_ON_DEVICE)
    _cl_add_expect_test(${t}/does-not-fit 2 "^[a-z0-9_]+: --n 2\\^40: needs .* of device memory"
                        LABEL gpu COMMAND ${p} --n 2^40)
  elseif(NOT L_NO_MEMORY_LIMIT_TEST)
    _cl_add_expect_test(${t}/does-not-fit 2 "^[a-z0-9_]+: --n 2\\^40: needs .* of host memory"
                        LABEL cpu COMMAND ${p} --n 2^40)
  endif()
  foreach(label IN ITEMS cpu gpu)
    if(label STREQUAL "cpu")
      set(bad ${L_BAD_INPUTS})
    else()
      set(bad ${L_GPU_BAD_INPUTS})
    endif()
    while(bad)
      list(POP_FRONT bad bad_name bad_code bad_regex bad_args)
      separate_arguments(bad_args UNIX_COMMAND "${bad_args}")
      _cl_add_expect_test(${t}/${bad_name} ${bad_code} "${bad_regex}" LABEL ${label}
                          COMMAND ${p} ${bad_args})
    endwhile()
  endforeach()

  # the runner: one table per case; `run-<lesson>` here, `run` for every lesson
  set(runner_args "")
  foreach(c IN LISTS L_RUN_CASES)
    list(APPEND runner_args --case "${c}")
  endforeach()
  add_custom_target(run-${lesson}
                    COMMAND cl_runner --skip-ok ${runner_args} "${bin_dir}"
                    DEPENDS ${targets} cl_runner USES_TERMINAL VERBATIM
                    COMMENT "Running every version of ${lesson}")
  # the committed results: the described versions and the libraries, never a student's copy
  # (vN_mine: the run target's table shows it, docs/results must not)
  set(measured_args "")
  foreach(source IN LISTS programs)
    get_filename_component(stem "${source}" NAME_WE)
    if(stem MATCHES "^baseline_" OR stem IN_LIST DESC_PROGRAMS)
      list(APPEND measured_args --only "${stem}")
    endif()
  endforeach()
  _cl_add_measure_target(results ${lesson} "${lesson}.csv" "Measuring ${lesson}" "${targets}"
                         ${measured_args} ${runner_args} "${bin_dir}")
  # the sweep: the best versions and the library over the shapes users meet
  if(L_SWEEP_CASES)
    set(sweep_args "")
    foreach(v IN LISTS L_SWEEP_VERSIONS)
      list(APPEND sweep_args --only "${v}")
    endforeach()
    foreach(c IN LISTS L_SWEEP_CASES)
      if(c MATCHES "^versions: (.*)$")
        # a part of the sweep with its own programs: the cases so far run, then these
        list(APPEND sweep_args "${bin_dir}")
        separate_arguments(part_versions UNIX_COMMAND "${CMAKE_MATCH_1}")
        foreach(v IN LISTS part_versions)
          list(APPEND sweep_args --only "${v}")
        endforeach()
      else()
        list(APPEND sweep_args --case "${c}")
      endif()
    endforeach()
    _cl_add_measure_target(sweep ${lesson} "${lesson}-sweep.csv" "Sweeping ${lesson}" "${targets}"
                           ${sweep_args} "${bin_dir}")
  endif()
  # the exercises' solutions, measured beside the versions they start from
  if(solutions AND L_EXERCISE_CASES)
    set(exercise_args "")
    foreach(v IN LISTS L_EXERCISE_VERSIONS solution_targets)
      string(REGEX REPLACE "^${lesson}_" "" v "${v}")
      list(APPEND exercise_args --only "${v}")
    endforeach()
    foreach(c IN LISTS L_EXERCISE_CASES)
      list(APPEND exercise_args --case "${c}")
    endforeach()
    _cl_add_measure_target(exercises ${lesson} "${lesson}-exercises.csv"
                           "Measuring the solutions of ${lesson}'s exercises"
                           "${targets};${solution_targets}" ${exercise_args} "${bin_dir}")
  endif()
  # what the grader runs (tools/grade.py reads it): the test shapes, the sanitizer's arguments,
  # the headline case and the cases of the runner and the sweep, one a line, "KIND ARGS"
  set(grade_lines "headline ${L_HEADLINE_CASE}\n")
  if(L_HEADLINE_CASE STREQUAL "")
    list(GET L_RUN_CASES 0 first_case)
    set(grade_lines "headline ${first_case}\n")
  endif()
  foreach(kind TEST LARGE_TEST)
    set(cases ${L_${kind}_CASES})
    set(word test)
    if(kind STREQUAL "LARGE_TEST")
      set(word large)
    endif()
    while(cases)
      list(POP_FRONT cases case_name case_args)
      string(APPEND grade_lines "${word} ${case_name} ${case_args}\n")
    endwhile()
  endforeach()
  list(JOIN L_SANITIZE_ARGS " " sanitize_default)
  string(APPEND grade_lines "sanitize default ${sanitize_default}\n")
  set(more ${L_SANITIZE_MORE})
  while(more)
    list(POP_FRONT more more_name more_args)
    string(APPEND grade_lines "sanitize ${more_name} ${more_args}\n")
  endwhile()
  foreach(c IN LISTS L_RUN_CASES)
    string(APPEND grade_lines "run ${c}\n")
  endforeach()
  foreach(c IN LISTS L_SWEEP_CASES)
    if(NOT c MATCHES "^versions: ")
      string(APPEND grade_lines "sweep ${c}\n")
    endif()
  endforeach()
  file(WRITE "${CMAKE_BINARY_DIR}/measure/${lesson}-grade.args" "${grade_lines}")
  set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_LESSONS ${lesson})
  set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_RUN_ARGS ${runner_args} "${bin_dir}")
  # the short run: the headline case, the core path (the versions the description calls core)
  # and the library
  set(headline "${L_HEADLINE_CASE}")
  if(headline STREQUAL "")
    list(GET L_RUN_CASES 0 headline)
  endif()
  set(short_args "")
  foreach(program IN LISTS DESC_PROGRAMS)
    if(DESC_${program}_kind STREQUAL "core")
      list(APPEND short_args --only "${program}")
    endif()
  endforeach()
  if(short_args)
    foreach(source IN LISTS programs)
      if(source MATCHES "^baseline_")
        get_filename_component(stem "${source}" NAME_WE)
        list(APPEND short_args --only "${stem}")
      endif()
    endforeach()
  endif()
  set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_SHORT_RUN_ARGS ${short_args} --case "${headline}"
               "${bin_dir}")
  set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_TARGETS ${targets})
endfunction()

# After every lesson: `run` and `run-all` run all runners one after another (never in parallel:
# they time the GPU); `results` re-measures every lesson into docs/results/<lesson>.csv and
# regenerates the pages.
# Deferred to the end of a directory that adds tests (cmake_language(DEFER)): the names of its
# tests labelled gpu or sanitize join the global list (get_test_property sees only the tests of
# the directory it is called from).
function(_cl_collect_gpu_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} LABELS labels)
    if(labels MATCHES "(^|;)(gpu|sanitize)(;|$)")
      set_property(GLOBAL APPEND PROPERTY CUDA_LESSONS_GPU_TEST_NAMES "${test}")
    endif()
  endforeach()
endfunction()

# On a machine with no GPU the gpu and sanitize tests would each report "Skipped": CTest is told to
# leave them out (CTestCustom.cmake), and one test says once why they did not run.
function(_cl_gpu_tests_here)
  set(custom "${CMAKE_BINARY_DIR}/CTestCustom.cmake")
  set(have_gpu ON)
  if(CUDA_LESSONS_GPU_TESTS STREQUAL "OFF")
    set(have_gpu OFF)
    set(why "CUDA_LESSONS_GPU_TESTS is OFF")
  elseif(CUDA_LESSONS_GPU_TESTS STREQUAL "AUTO")
    find_program(_cl_smi nvidia-smi)
    set(smi_rc 1)
    if(_cl_smi)
      execute_process(COMMAND ${_cl_smi} -L OUTPUT_VARIABLE smi_out RESULT_VARIABLE smi_rc
                      ERROR_QUIET)
    endif()
    if(NOT smi_rc EQUAL 0 OR NOT smi_out MATCHES "GPU [0-9]")
      set(have_gpu OFF)
      set(why "no GPU found by nvidia-smi when CMake configured this build")
    endif()
  endif()
  if(have_gpu)
    file(WRITE "${custom}" "# cuda-lessons: every test runs here\n")
    return()
  endif()
  get_property(gpu_tests GLOBAL PROPERTY CUDA_LESSONS_GPU_TEST_NAMES)
  list(LENGTH gpu_tests count)
  string(REPLACE ";" "\n  " names "${gpu_tests}")
  # ... and every ctest run, whatever it selects (ctest -R v10_mine finds none of them), ends by
  # saying how many were left out and why
  set(left_out "cuda-lessons: ${count} gpu and sanitize tests left out of ctest here: ${why} (configure on a machine with a GPU, or -DCUDA_LESSONS_GPU_TESTS=ON)")
  file(WRITE "${custom}" "# cuda-lessons: ${why}; these tests need a GPU\n"
                         "set(CTEST_CUSTOM_TESTS_IGNORE\n  ${names})\n"
                         "set(CTEST_CUSTOM_POST_TEST [==[\"${CMAKE_COMMAND}\" -E echo \"${left_out}\"]==])\n")
  message(STATUS "cuda-lessons: ${why}: the ${count} gpu and sanitize tests are left out of "
                 "ctest (configure on a machine with a GPU, or -DCUDA_LESSONS_GPU_TESTS=ON)")
  add_test(NAME gpu-and-sanitize-tests-need-a-gpu
           COMMAND ${CMAKE_COMMAND} -E echo "${count} gpu and sanitize tests not run: ${why}")
  set_tests_properties(gpu-and-sanitize-tests-need-a-gpu PROPERTIES LABELS cpu
                       SKIP_REGULAR_EXPRESSION "not run")
endfunction()

function(cuda_lessons_finish)
  # at the very end of the configuration, once every directory has listed its gpu tests
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cl_gpu_tests_here)
  get_property(run_args GLOBAL PROPERTY CUDA_LESSONS_RUN_ARGS)
  get_property(short_run_args GLOBAL PROPERTY CUDA_LESSONS_SHORT_RUN_ARGS)
  get_property(targets GLOBAL PROPERTY CUDA_LESSONS_TARGETS)
  # one runner call for every lesson, so that a machine without a GPU hears it once: `run` the
  # short default (each lesson's headline case, its core path and the library), `run-all` every
  # version at every case
  add_custom_target(run COMMAND cl_runner --skip-ok ${short_run_args}
                    DEPENDS ${targets} cl_runner USES_TERMINAL VERBATIM
                    COMMENT "Running each lesson's core path at its headline case (every version and case: run-all)")
  add_custom_target(run-all COMMAND cl_runner --skip-ok ${run_args}
                    DEPENDS ${targets} cl_runner USES_TERMINAL VERBATIM
                    COMMENT "Running every version of every lesson at every case")
  # `results`, `sweep` and `exercises`: every lesson's KIND-<lesson> runner command, in lesson
  # order, then the pages regenerated once
  foreach(kind results sweep exercises)
    get_property(commands GLOBAL PROPERTY CUDA_LESSONS_${kind}_COMMANDS)
    get_property(programs GLOBAL PROPERTY CUDA_LESSONS_${kind}_PROGRAMS)
    if(NOT commands)
      set(commands COMMAND ${CMAKE_COMMAND} -E echo "no lesson here has ${kind} to measure")
    endif()
    add_custom_target(${kind}
                      COMMAND ${CMAKE_COMMAND} -E make_directory "${CUDA_LESSONS_ROOT}/docs/results"
                      ${commands}
                      COMMAND ${CUDA_LESSONS_PYTHON3} "${CUDA_LESSONS_ROOT}/docs/pages.py" update
                      DEPENDS ${programs} cl_runner USES_TERMINAL VERBATIM
                      COMMENT "Every lesson's ${kind} into docs/results/ (needs a GPU)")
  endforeach()
endfunction()
