/** The exchange's OpenAPI document for the pages' forms (null until read after sign-in). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { OpenApiDocument } from './api.js';

/** The exchange's OpenAPI document (`GET /v1/openapi.json`), from which forms take the API's own field rules; null until loaded. */
export const ApiDoc = createContext<OpenApiDocument | null>(null);

/** The OpenAPI document, or null while it loads. */
export const useApiDoc = (): OpenApiDocument | null => useContext(ApiDoc);
