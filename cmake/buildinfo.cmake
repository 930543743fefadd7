# Run at every build (cmake -P): writes the commit the library is built
# from into BUILDINFO_H (for loom_build_info) and BUILDINFO_JSON (for the
# Python tools), rewriting them only when they change, so an unchanged tree
# rebuilds nothing.  Inputs: SRC, OUT_H, OUT_JSON, VERSION, COMPILER.
set(commit unknown)
set(date unknown)
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" rev-parse --short=12 HEAD
    OUTPUT_VARIABLE c RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND c)
    set(commit "${c}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" log -1 --format=%cs
      OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    # Changes to tracked files make the build differ from the commit.
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SRC}" status --porcelain --untracked-files=no
      OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(dirty)
      string(APPEND commit "+dirty")
    endif()
  endif()
endif()
set(h "/* Written by cmake/buildinfo.cmake at build time. */\n#define LOOM_BUILD_COMMIT \"${commit}\"\n#define LOOM_BUILD_DATE \"${date}\"\n")
set(j "{\"version\": \"${VERSION}\", \"commit\": \"${commit}\", \"commit_date\": \"${date}\", \"compiler\": \"${COMPILER}\"}\n")
foreach(pair "OUT_H;h" "OUT_JSON;j")
  list(GET pair 0 out)
  list(GET pair 1 var)
  set(old "")
  if(EXISTS "${${out}}")
    file(READ "${${out}}" old)
  endif()
  if(NOT old STREQUAL "${${var}}")
    file(WRITE "${${out}}" "${${var}}")
  endif()
endforeach()
