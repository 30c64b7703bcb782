# The test tiers: every tests/test_*.cpp file is in exactly one list (CMakeLists.txt refuses a file
# in none or in two). ctest runs one entry per file, labelled with its tier; `ctest -L unit` runs a tier.
#   unit       pure functions and parsers, in process (the whole tier in under a minute)
#   cli        the attnviz binary on fixtures: messages, exit codes, outputs
#   reference  numbers against independent references: PyTorch, llama.cpp, tokenizers' fixtures
#   slow       the longest files (over 20 s each), kept out of `scripts/test.sh --quick` and the sanitizer run
#   browser    the --html viewer in headless Chromium (tests/browser/)

set(ATTNVIZ_TIER_unit
  test_analysis_heads test_analysis_rows test_atomic_file test_attention test_bert_pretokenizers
  test_block_team test_colormap test_figure test_gated_ffn test_gguf test_gguf_dequant
  test_family_records test_layer_traits test_sink_logits test_mixture_of_experts test_command_plans test_gqa test_include_rules test_limits test_model
  test_model_hostile test_normalizers test_npy test_pipeline_tokenizer test_png test_pre_tokenizers
  test_progress_sink test_render_canvas test_render_colormaps test_render_pooling test_rms_norm
  test_rotary test_row_kernel test_safetensors test_save_sink test_stack test_table test_terminal
  test_terminal_multiples test_text_file test_text_shaping test_tokenizer_bpe test_tokenizer_json
  test_tokens test_unicode test_vector_math test_weight_matrix test_wordpiece test_fuzz_scratch
  test_alignment test_relative_bias test_recurrent test_patch_embedding test_overlay
)
set(ATTNVIZ_TIER_cli
  test_check test_cli test_cli_hostile test_cli_messages test_init_families test_inputs_cli
  test_inspect_gguf test_mask_file test_non_finite test_ollama test_output_places test_render_cli
  test_signal_cleanup test_startup test_stats test_trained_induction test_init_vocabulary
  test_input_bounds test_input_messages test_report_wording test_required_tensors test_save_tokens
  test_selection_lists test_output_honesty test_align test_vision_inputs
)
set(ATTNVIZ_TIER_reference
  test_gguf_fixtures test_gguf_llama_cpp
  test_attention_flow test_bpe_model test_colour_scale test_explain test_explain_seeds
  test_figure_file test_find_tokenizer test_gguf_models test_gguf_quantize
  test_gguf_write test_head_detection test_heads_batch test_hf_cache test_html_viewer
  test_inspect_cli test_logits test_map_diff test_model_families test_no_positions
  test_panel test_positions test_pytorch_fixtures test_pytorch_mha test_residual test_rollout
  test_selection test_sentencepiece test_stats_batch test_stored_weights test_text_cli
  test_tokenizer_gpt2 test_tokenizer_hf_reference test_unigram test_marian_tokenizer
  test_translation_models test_t5 test_t5_tokenizer test_nllb_tokenizer
  test_trained_translation test_gru_translation test_m2m100_tokenizer test_image_inputs
  test_vision_rollout
)
set(ATTNVIZ_TIER_slow
  test_gguf_tokenizer test_init_gguf test_tokenizer_references test_normalizer_bounds
)
