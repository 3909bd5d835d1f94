// The mapping from material-service records to what the view draws.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Color, SRGBColorSpace } from 'three';
import type { Material } from '../../web/src/api/types.ts';
import { NEW_MATERIAL } from '../../web/src/pages/material-form.ts';
import { materialToThree } from '../../web/src/viewer/material-to-three.ts';
import { fromHex, toHex } from '../../web/src/ui/color.ts';

const RED: Material = { ...NEW_MATERIAL, id: 7, name: 'red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 };

void test('diffuse becomes the sRGB base colour and PBR fields map one to one', () => {
  const material = materialToThree({ ...RED, metallic: 0.25, roughness: 0.75, reflectance: 0.4 });
  assert.equal(material.color.getHexString(SRGBColorSpace), 'ff0000');
  assert.equal(material.metalness, 0.25);
  assert.equal(material.roughness, 0.75);
  assert.ok(Math.abs(material.reflectivity - 0.4) < 1e-6);
  assert.equal(material.userData.materialId, 7);
  assert.equal(material.transparent, false);
});

void test('alpha below 255 makes the material transparent', () => {
  const material = materialToThree({ ...RED, alpha: 51 });
  assert.ok(Math.abs(material.opacity - 0.2) < 1e-6);
  assert.equal(material.transparent, true);
  assert.equal(material.depthWrite, false);
});

void test('specular tints reflections only when set, ambient adds a little self-light', () => {
  const plain = materialToThree(RED);
  assert.equal(plain.specularColor.getHexString(), new Color(1, 1, 1).getHexString());
  assert.equal(plain.emissive.getHex(), 0);
  const tinted = materialToThree({ ...RED, specular_r: 0, specular_g: 0, specular_b: 255, ambient_g: 255 });
  assert.equal(tinted.specularColor.getHexString(SRGBColorSpace), '0000ff');
  assert.ok(tinted.emissive.g > 0 && tinted.emissive.g < 0.5);
});

void test('out-of-range scalars are clamped rather than breaking the shader', () => {
  const material = materialToThree({ ...RED, metallic: 3, roughness: -1, reflectance: Number.NaN });
  assert.deepEqual([material.metalness, material.roughness, material.reflectivity], [1, 0, 0]);
});

void test('colour pickers round-trip 0–255 channels', () => {
  assert.equal(toHex(255, 0, 127.6), '#ff0080');
  assert.equal(toHex(-5, 300, 16), '#00ff10');
  assert.deepEqual(fromHex('#FF0080'), [255, 0, 128]);
  assert.deepEqual(fromHex('not a colour'), [0, 0, 0]);
});
