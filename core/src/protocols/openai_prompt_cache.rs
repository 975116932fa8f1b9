//! pi-ai `dist/api/openai-prompt-cache.js`: the `prompt_cache_key` clamp shared by
//! openai-completions and the Responses adapters.

/// `clampOpenAIPromptCacheKey(key)` (AI/api/openai-prompt-cache.js:2–9): at most 64 code points
/// (`Array.from`, not UTF-16 units).
pub fn clamp_openai_prompt_cache_key(key: Option<&str>) -> Option<String> {
    let key = key?;
    // A lone surrogate is its own element of `Array.from`, as its stand-in char is here.
    if key.chars().count() <= 64 {
        return Some(key.to_string());
    }
    Some(key.chars().take(64).collect())
}
