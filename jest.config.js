/** Unit tests run the analysis code in Node with the real tree-sitter wasm. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/unit'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }]
  },
  moduleFileExtensions: ['ts', 'tsx', 'js', 'json'],
  testTimeout: 30000
};
