# cpu_gemm's AVX-512 kernels on any CPU: their own sources built against
# emul/immintrin.h (portable stand-ins for the intrinsics they use) and
# checked on every tile shape, the in-kernel copy and the thin kernels.
# x86-64 only (the kernel files are).
if(TARGET olc_cpu_gemm_core AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  olc_add_test(NAME test_avx512_emul
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_avx512_emul.c
            ${PROJECT_SOURCE_DIR}/plugins/cpu_gemm/kernels/avx512/sgemm_avx512_12x32.c
            ${PROJECT_SOURCE_DIR}/plugins/cpu_gemm/kernels/avx512/sgemm_avx512_thin.c
            ${PROJECT_SOURCE_DIR}/plugins/cpu_gemm/kernels/avx512/sgemm_avx512_thin16.c
    LABELS unit)
  # emul/ first, so that the kernel's <immintrin.h> is the stand-in; the
  # kernel's body is compiled because __AVX512F__ says so (no -mavx512f:
  # the code must run here).
  target_include_directories(test_avx512_emul BEFORE PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/emul ${PROJECT_SOURCE_DIR}/plugins/cpu_gemm)
  target_compile_definitions(test_avx512_emul PRIVATE __AVX512F__=1)
  target_link_libraries(test_avx512_emul PRIVATE olc::plugin_api m)
  # Optimizing the stand-ins inlined into the kernels with the sanitizers'
  # instrumentation takes gcc more than 15 CPU minutes at -O2 (about 10 s at
  # -O0), and the test runs in about a second at -O0: the sanitizers check
  # the kernels' loads and stores just as well unoptimized.
  # The 16-bit kernel's variants (two types, prefetching or not, four row
  # counts, eight group sizes, the interleaved blocks) inlined over the
  # stand-ins keep gcc busy for minutes at -O3; at -O0 it builds in
  # seconds and proves the same logic.  (Source properties are per
  # directory: the plugin's own copy keeps its flags.)
  set_source_files_properties(
    ${PROJECT_SOURCE_DIR}/plugins/cpu_gemm/kernels/avx512/sgemm_avx512_thin16.c
    PROPERTIES COMPILE_OPTIONS -O0)
  if(OLC_SANITIZE OR OLC_TSAN)
    target_compile_options(test_avx512_emul PRIVATE -O0)
  endif()
endif()
