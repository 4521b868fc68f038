/**
 * `plant-store/testing` in a Jest project: the memory repository and the static verifier
 * registered with Jest's `it`. Jest runs plain JavaScript here, so the package comes built (as
 * users get it): `.kit/` holds `plant-store` and `plant-store/testing` bundled by the test that
 * runs this project.
 *
 * @module
 */

import { describe, it } from '@jest/globals';
import { createMemoryRepository, createStaticTokenVerifier } from '../.kit/index.js';
import { registerRepositoryConformance, registerVerifierConformance } from '../.kit/testing.js';

describe('createMemoryRepository', () => {
  registerRepositoryConformance(it, () => createMemoryRepository());
});

describe('createStaticTokenVerifier', () => {
  registerVerifierConformance(it, () => createStaticTokenVerifier(['s3cr3t']), {
    valid: ['s3cr3t'],
    invalid: ['guess'],
  });
});
