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
      # clang links its sanitizer runtime statically into executables only,
      # so a shared module linked with -z defs (the plugins) sees the
      # __asan_* symbols undefined.  The shared runtime resolves them; the
      # rpath lets the executables find it.
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                      OUTPUT_VARIABLE OLC_ASAN_RT OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(OLC_ASAN_RT AND EXISTS "${OLC_ASAN_RT}")
        get_filename_component(OLC_ASAN_RT_DIR "${OLC_ASAN_RT}" DIRECTORY)
        add_link_options(-shared-libsan "LINKER:-rpath,${OLC_ASAN_RT_DIR}")
      endif()
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
