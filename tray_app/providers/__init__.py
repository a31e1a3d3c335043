"""Model servers: Ollama's native API and OpenAI-compatible ones."""
