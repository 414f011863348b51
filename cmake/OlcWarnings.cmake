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
