/**
 * `plant-store/testing` in a Vitest project: the memory repository and the static verifier
 * registered with Vitest's `it`.
 *
 * @module
 */

import { describe, it } from 'vitest';
import { createMemoryRepository, createStaticTokenVerifier } from '../../../../lib/index.ts';
import {
  registerRepositoryConformance,
  registerVerifierConformance,
} from '../../../../lib/testing.ts';

describe('createMemoryRepository', () => {
  registerRepositoryConformance(it, () => createMemoryRepository());
});

describe('createStaticTokenVerifier', () => {
  registerVerifierConformance(it, () => createStaticTokenVerifier(['s3cr3t']), {
    valid: ['s3cr3t'],
    invalid: ['guess'],
  });
});
