include_guard(GLOBAL)

# olc_add_subdirectories(): adds every folder of the current source folder
# that has a CMakeLists.txt, in sorted order (plugins, examples and benches
# are one folder each, added without editing a list).
function(olc_add_subdirectories)
  file(GLOB dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*)
  foreach(d IN LISTS dirs)
    if(IS_DIRECTORY ${d} AND EXISTS ${d}/CMakeLists.txt)
      add_subdirectory(${d})
    endif()
  endforeach()
endfunction()
