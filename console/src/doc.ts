/** The exchange's OpenAPI document for the pages' forms (null until read after sign-in). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { OpenApiDocument } from './api.js';

export const ApiDoc = createContext<OpenApiDocument | null>(null);

/** The OpenAPI document, or null while it loads. */
export const useApiDoc = (): OpenApiDocument | null => useContext(ApiDoc);
