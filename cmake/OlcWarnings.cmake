# Warning and sanitizer flags shared by every target of the project.
# olc_target_warnings(target) applies them to one target (never globally, so
# third-party code compiled in the same tree keeps its own flags).

set(OLC_C_WARNINGS
  -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wformat=2 -Wconversion -Wsign-conversion -Wundef -Wcast-qual
  -Wwrite-strings -Wvla)

if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options(-fno-common)
  if(OLC_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
    if(CMAKE_C_COMPILER_ID MATCHES "Clang" AND NOT APPLE AND NOT WIN32)
      # clang links its sanitizer runtime into executables only; a shared
      # module linked with -z defs (the plugins) then sees __asan_*
      # undefined.  They resolve from the executable at load time, so
      # sanitized clang builds allow undefined symbols: the standard
      # libraries come last on every link line, after a target's -z defs.
      string(APPEND CMAKE_C_STANDARD_LIBRARIES " -Wl,-z,undefs")
    endif()
  endif()
  if(OLC_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
    # Coverage for libFuzzer in every object, not only in the fuzz targets'
    # own files; the fuzz executables add -fsanitize=fuzzer at link.
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  if(OLC_TSAN)
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
  endif()
endif()

function(olc_target_warnings target)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${OLC_C_WARNINGS}>)
    if(OLC_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  elseif(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${OLC_WERROR}>:/WX>)
  endif()
endfunction()
